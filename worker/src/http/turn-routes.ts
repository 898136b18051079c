import { Hono } from "hono";
import { ASK_ORDER_HEADER, type AskTicket, CLAIM_HEADER, CLAIMANT, DuetError, execRequestSchema, messageRequestSchema, parseAskTicket, STREAM_EVENTS_HEADER, STREAM_TEXT_HEADER, stopRequestSchema, TRACEPARENT_HEADER, type MessageRequest } from "@duet/shared";
import type { LiveOutcome, StreamOptions } from "../live/live-turns.ts";
import { SSE_HEADERS } from "../live/sse.ts";
import { send, type RoomApp } from "./rooms.ts";
import { jsonBody } from "../request.ts";
import { beforeCursor } from "./page-cursor.ts";

/**
 * A room's conversation (mounted in room-routes.ts, which puts the room on
 * `c.var`): a message and its answer, live or whole, stopping a turn, a
 * command run by hand, the history and the room's stats.
 */
export const turnRoutes = new Hono<RoomApp>();

/** A client asks for the live stream with `Accept: text/event-stream`; anything else gets the JSON answer. */
function wantsStream(accept: string | undefined): boolean {
  return /(^|,)\s*text\/event-stream\s*(;|,|$)/i.test(accept ?? "");
}

/** The optional stream events a client reads, from its comma-separated list (names it does not know are ignored), and whether it shows the text whole. */
function streamOptions(list: string | undefined, text: string | undefined): StreamOptions {
  const names = (list ?? "").split(",").map((n) => n.trim().toLowerCase());
  return { queued: names.includes("queued"), ...(text?.trim().toLowerCase() === "whole" ? { whole: true } : {}) };
}

/** The delivery's claimant (CLAIM_HEADER), checked: it names its key's first asker, so it needs a key. */
function claimOf(raw: string | undefined, body: MessageRequest): string | undefined {
  if (raw === undefined) return undefined;
  const problem = !CLAIMANT.test(raw)
    ? `${CLAIM_HEADER} must be 1-100 characters from A-Z a-z 0-9 . _ -`
    : !body.idempotencyKey
      ? `${CLAIM_HEADER} claims the message's idempotency key, and the message has none`
      : null;
  if (problem) throw new DuetError("invalid_request", "invalid request", { details: { [CLAIM_HEADER]: [problem] } });
  return raw;
}

/** The ask's place among its front end's asks (ASK_ORDER_HEADER), checked. */
function orderOf(raw: string | undefined): AskTicket | undefined {
  if (raw === undefined) return undefined;
  const ticket = parseAskTicket(raw);
  if (!ticket) throw new DuetError("invalid_request", "invalid request", { details: { [ASK_ORDER_HEADER]: [`${ASK_ORDER_HEADER} must be <process>:<number>[:<number>]`] } });
  return ticket;
}

turnRoutes.post("/message", jsonBody(messageRequestSchema), async (c) => {
  const body = c.req.valid("json");
  const claim = claimOf(c.req.header(CLAIM_HEADER), body);
  const order = orderOf(c.req.header(ASK_ORDER_HEADER));
  // Handed to the room as sent: the room reads it, and a malformed one starts a new trace there.
  const traceparent = c.req.header(TRACEPARENT_HEADER);
  if (!wantsStream(c.req.header("accept"))) return send(await c.var.room.message(body, claim, traceparent, order));
  // The RPC types cannot express a stream inside a union; at run time it crosses as a byte stream.
  const live = (await c.var.room.messageStream(body, streamOptions(c.req.header(STREAM_EVENTS_HEADER), c.req.header(STREAM_TEXT_HEADER)), claim, traceparent, order)) as unknown as LiveOutcome;
  return live.stream ? new Response(live.stream, { status: 200, headers: SSE_HEADERS }) : send(live);
});

turnRoutes.post("/stop", jsonBody(stopRequestSchema), async (c) => send(await c.var.room.stop(c.req.valid("json"))));
turnRoutes.post("/sandbox/exec", jsonBody(execRequestSchema), async (c) => send(await c.var.room.exec(c.req.valid("json"))));
turnRoutes.get("/messages", async (c) => send(await c.var.room.messages(beforeCursor(c.req.query("before")))));
turnRoutes.get("/stats", async (c) => send(await c.var.room.stats()));
