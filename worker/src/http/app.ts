import { Hono } from "hono";
import { getAgentByName } from "agents";
import { DuetError, execRequestSchema, isValidRoomId, messageRequestSchema } from "@duet/shared";
import type { Outcome } from "../agent/duet-agent.ts";
import { ConfigError } from "../config.ts";
import type { Env } from "../env.ts";
import { requireToken } from "./auth.ts";
import { info } from "./info.ts";
import { readJson } from "./json-body.ts";

type App = { Bindings: Env };

function roomIdOf(raw: string | undefined): string {
  if (!raw) throw new DuetError("not_found", "missing room id");
  if (!isValidRoomId(raw)) {
    throw new DuetError("invalid_request", "invalid request", {
      details: { roomId: ["Room id must be 1-200 characters of A-Z, a-z, 0-9, '.', '_' or '-'"] },
    });
  }
  return raw;
}

async function room(env: Env, roomId: string) {
  return getAgentByName(env.DUET_AGENT, roomId);
}

function send(outcome: Outcome): Response {
  const headers: Record<string, string> = {};
  const retryAfterMs = (outcome.body as { retryAfterMs?: number }).retryAfterMs;
  if (outcome.status === 429 && retryAfterMs) headers["retry-after"] = String(Math.ceil(retryAfterMs / 1000));
  return Response.json(outcome.body, { status: outcome.status, headers });
}

const methodNotAllowed = () => {
  throw new DuetError("method_not_allowed", "method not allowed");
};

export const app = new Hono<App>();

app.get("/health", (c) => c.text("ok"));

app.use("/api/*", requireToken);

app.get("/api/info", info);
app.all("/api/info", methodNotAllowed);

app.post("/api/rooms/:roomId/message", async (c) => {
  const roomId = roomIdOf(c.req.param("roomId"));
  const body = await readJson(c, messageRequestSchema);
  return send(await (await room(c.env, roomId)).message(roomId, body));
});
app.all("/api/rooms/:roomId/message", methodNotAllowed);

app.post("/api/rooms/:roomId/sandbox/exec", async (c) => {
  const roomId = roomIdOf(c.req.param("roomId"));
  const body = await readJson(c, execRequestSchema);
  return send(await (await room(c.env, roomId)).exec(roomId, body));
});
app.all("/api/rooms/:roomId/sandbox/exec", methodNotAllowed);

app.get("/api/rooms/:roomId/messages", async (c) => {
  const roomId = roomIdOf(c.req.param("roomId"));
  return send(await (await room(c.env, roomId)).messages());
});
app.all("/api/rooms/:roomId/messages", methodNotAllowed);

app.get("/api/rooms/:roomId/stats", async (c) => {
  const roomId = roomIdOf(c.req.param("roomId"));
  return send(await (await room(c.env, roomId)).stats());
});
app.all("/api/rooms/:roomId/stats", methodNotAllowed);

app.delete("/api/rooms/:roomId", async (c) => {
  const roomId = roomIdOf(c.req.param("roomId"));
  return send(await (await room(c.env, roomId)).cleanup(roomId));
});
app.all("/api/rooms/:roomId", methodNotAllowed);

app.notFound(() => Response.json({ error: "not found", code: "not_found" }, { status: 404 }));

app.onError((err) => {
  if (err instanceof DuetError) return Response.json(err.toBody(), { status: err.status });
  if (err instanceof ConfigError) return Response.json({ error: err.message, code: "internal" }, { status: 503 });
  // Never a stack trace to the caller; the log keeps it for the operator.
  console.error("unhandled error", err);
  return Response.json({ error: "internal error", code: "internal" }, { status: 500 });
});
