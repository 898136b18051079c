import { Hono } from "hono";
import { validator } from "hono/validator";
import { DuetError, USER_ID_MAX_CHARS, approvalIdSchema, decisionRequestSchema, modelRequestSchema, policyRequestSchema, repoRequestSchema } from "@duet/shared";
import { send, type RoomApp } from "./rooms.ts";
import { jsonBody } from "../request.ts";

/** The run policy, approvals and audit of a room (mounted in room-routes.ts, which puts the room on `c.var`). */
export const controlRoutes = new Hono<RoomApp>();

controlRoutes.get("/policy", async (c) => send(await c.var.room.policy()));
controlRoutes.put("/policy", jsonBody(policyRequestSchema), async (c) => send(await c.var.room.setPolicy(c.req.valid("json"))));

controlRoutes.get("/model", async (c) => send(await c.var.room.model()));
controlRoutes.put("/model", jsonBody(modelRequestSchema), async (c) => send(await c.var.room.setModel(c.req.valid("json"))));

controlRoutes.get("/repo", async (c) => send(await c.var.room.repo()));
controlRoutes.put("/repo", jsonBody(repoRequestSchema), async (c) => send(await c.var.room.setRepo(c.req.valid("json"))));
// `?userId=`: who unlinked it, for the audit.
controlRoutes.delete("/repo", async (c) => send(await c.var.room.removeRepo(resetBy(c.req.query("userId")))));

// `?userId=` adds what that person has left of their daily budget.
controlRoutes.get("/usage", async (c) => {
  const userId = c.req.query("userId");
  return send(await c.var.room.usage(userId === undefined ? undefined : resetBy(userId)));
});

// The approval id is checked before the body is read.
const approvalParam = validator("param", (params: { approvalId?: string }) => ({ approvalId: approvalIdOf(params.approvalId) }));
controlRoutes.post("/approvals/:approvalId", approvalParam, jsonBody(decisionRequestSchema), async (c) => {
  return send(await c.var.room.decide(c.req.valid("param").approvalId, c.req.valid("json")));
});

controlRoutes.get("/audit", async (c) => send(await c.var.room.audit()));

function approvalIdOf(raw: string | undefined): string {
  const parsed = approvalIdSchema.safeParse(raw);
  if (!parsed.success) throw new DuetError("invalid_request", "invalid request", { details: { approvalId: [parsed.error.issues[0].message] } });
  return parsed.data;
}

/** `?userId=U1`: the person resetting the room (recorded in its emptied audit), unlinking its repository, or asking for their usage. */
export function resetBy(raw: string | undefined): string | undefined {
  if (raw === undefined) return undefined;
  const id = raw.trim();
  if (!id || id.length > USER_ID_MAX_CHARS) {
    throw new DuetError("invalid_request", "invalid request", { details: { userId: [`User id must be 1-${USER_ID_MAX_CHARS} characters`] } });
  }
  return id;
}
