import { Hono } from "hono";
import { validator } from "hono/validator";
import { DuetError, FACTS_PER_ROOM, pinFactRequestSchema, proposalClickSchema, PROPOSAL_ID_PATTERN } from "@duet/shared";
import { jsonBody } from "../request.ts";
import { resetBy } from "./control-routes.ts";
import { send, type RoomApp } from "./rooms.ts";

/** A room's pinned facts (mounted at `/memory` in room-routes.ts, which puts the room on `c.var`). */
export const memoryRoutes = new Hono<RoomApp>();

memoryRoutes.get("/", async (c) => send(await c.var.room.memory()));
memoryRoutes.post("/", jsonBody(pinFactRequestSchema), async (c) => send(await c.var.room.remember(c.req.valid("json"))));

// `/memory/3?userId=U1`: forget fact 3, as the list numbers it; the number is checked before any room is woken.
const factNumber = validator("param", (params: { n?: string }) => ({ n: factNumberOf(params.n) }));
memoryRoutes.delete("/:n", factNumber, async (c) => send(await c.var.room.forget(c.req.valid("param").n, resetBy(c.req.query("userId")))));

// `/memory/proposed/:id`: a person's Pin (POST, who clicked in the body) or Dismiss (DELETE) of a fact the model proposed.
const proposalId = validator("param", (params: { id?: string }) => {
  if (!PROPOSAL_ID_PATTERN.test(params.id ?? "")) throw new DuetError("invalid_request", "invalid request", { details: { id: ["Proposal id must be 1-64 characters of A-Z, a-z, 0-9 or '-'"] } });
  return { id: params.id as string };
});
memoryRoutes.post("/proposed/:id", proposalId, jsonBody(proposalClickSchema), async (c) => send(await c.var.room.pinProposed(c.req.valid("param").id, c.req.valid("json"))));
memoryRoutes.delete("/proposed/:id", proposalId, async (c) => send(await c.var.room.dismissProposed(c.req.valid("param").id)));

function factNumberOf(raw: string | undefined): number {
  const n = /^\d{1,4}$/.test(raw ?? "") ? Number(raw) : NaN;
  if (!(n >= 1 && n <= FACTS_PER_ROOM)) {
    throw new DuetError("invalid_request", "invalid request", { details: { n: [`Fact number must be a whole number from 1 to ${FACTS_PER_ROOM}`] } });
  }
  return n;
}
