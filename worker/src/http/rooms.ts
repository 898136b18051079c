import type { MiddlewareHandler } from "hono";
import { DuetError, isValidRoomId } from "@duet/shared";
import type { Outcome, WireOutcome } from "../outcome.ts";
import type { Env } from "../room/duet-agent.ts";

/**
 * The room's stub. Its methods start the room themselves, so this is one RPC
 * per request (getAgentByName would add a round trip to start it first).
 */
export function roomStub(env: Env, roomId: string) {
  return env.DUET_AGENT.getByName(roomId);
}

/** What every route under `/api/rooms/:roomId` finds on `c.var`: the checked id and its room. */
export type RoomVars = { roomId: string; room: ReturnType<typeof roomStub> };
export type RoomApp = { Bindings: Env; Variables: RoomVars };

/** The room id from the path, or the 400/404 a bad one gets (before any room is woken). */
function roomIdOf(raw: string | undefined): string {
  if (!raw) throw new DuetError("not_found", "missing room id");
  if (!isValidRoomId(raw)) {
    throw new DuetError("invalid_request", "invalid request", {
      details: { roomId: ["Room id must be 1-200 characters of A-Z, a-z, 0-9, '.', '_' or '-'"] },
    });
  }
  return raw;
}

/** Checks `:roomId` once for every room route and puts the id and the room's stub on `c.var`. */
export const withRoom: MiddlewareHandler<RoomApp> = async (c, next) => {
  const roomId = roomIdOf(c.req.param("roomId"));
  c.set("roomId", roomId);
  c.set("room", roomStub(c.env, roomId));
  await next();
};

/**
 * A room's Outcome as the HTTP answer; a WireOutcome's JSON is passed through
 * as the room wrote it. A full room's 429 says when to come back.
 */
export function send(outcome: Outcome | WireOutcome): Response {
  const headers: Record<string, string> = { "content-type": "application/json" };
  const retryAfterMs = "json" in outcome ? outcome.retryAfterMs : (outcome.body as { retryAfterMs?: number }).retryAfterMs;
  if (outcome.status === 429 && retryAfterMs) headers["retry-after"] = String(Math.ceil(retryAfterMs / 1000));
  return new Response("json" in outcome ? outcome.json : JSON.stringify(outcome.body), { status: outcome.status, headers });
}
