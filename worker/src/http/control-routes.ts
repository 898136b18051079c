import { Hono } from "hono";
import { DuetError, USER_ID_MAX_CHARS, approvalIdSchema, decisionRequestSchema, modelRequestSchema, policyRequestSchema, repoRequestSchema } from "@duet/shared";
import type { Env } from "../room/duet-agent.ts";
import { room, send } from "./rooms.ts";
import { methodNotAllowed, readJson } from "../request.ts";

/** The run policy, approvals and audit of a room (mounted under the token check in app.ts). */
export const controlRoutes = new Hono<{ Bindings: Env }>();

controlRoutes.get("/api/rooms/:roomId/policy", async (c) => {
  return send(await room(c.env, c.req.param("roomId")).policy());
});
controlRoutes.put("/api/rooms/:roomId/policy", async (c) => {
  const stub = room(c.env, c.req.param("roomId"));
  return send(await stub.setPolicy(await readJson(c, policyRequestSchema)));
});
controlRoutes.all("/api/rooms/:roomId/policy", methodNotAllowed);

controlRoutes.get("/api/rooms/:roomId/model", async (c) => {
  return send(await room(c.env, c.req.param("roomId")).model());
});
controlRoutes.put("/api/rooms/:roomId/model", async (c) => {
  const stub = room(c.env, c.req.param("roomId"));
  return send(await stub.setModel(await readJson(c, modelRequestSchema)));
});
controlRoutes.all("/api/rooms/:roomId/model", methodNotAllowed);

controlRoutes.get("/api/rooms/:roomId/repo", async (c) => {
  return send(await room(c.env, c.req.param("roomId")).repo());
});
controlRoutes.put("/api/rooms/:roomId/repo", async (c) => {
  const stub = room(c.env, c.req.param("roomId"));
  return send(await stub.setRepo(await readJson(c, repoRequestSchema)));
});
// `?userId=`: who unlinked it, for the audit.
controlRoutes.delete("/api/rooms/:roomId/repo", async (c) => {
  return send(await room(c.env, c.req.param("roomId")).removeRepo(resetBy(c.req.query("userId"))));
});
controlRoutes.all("/api/rooms/:roomId/repo", methodNotAllowed);

// `?userId=` adds what that person has left of their daily budget.
controlRoutes.get("/api/rooms/:roomId/usage", async (c) => {
  const userId = c.req.query("userId");
  return send(await room(c.env, c.req.param("roomId")).usage(userId === undefined ? undefined : resetBy(userId)));
});
controlRoutes.all("/api/rooms/:roomId/usage", methodNotAllowed);

controlRoutes.post("/api/rooms/:roomId/approvals/:approvalId", async (c) => {
  const stub = room(c.env, c.req.param("roomId"));
  const approvalId = approvalIdOf(c.req.param("approvalId"));
  return send(await stub.decide(approvalId, await readJson(c, decisionRequestSchema)));
});
controlRoutes.all("/api/rooms/:roomId/approvals/:approvalId", methodNotAllowed);

controlRoutes.get("/api/rooms/:roomId/audit", async (c) => {
  return send(await room(c.env, c.req.param("roomId")).audit());
});
controlRoutes.all("/api/rooms/:roomId/audit", methodNotAllowed);

function approvalIdOf(raw: string): string {
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
