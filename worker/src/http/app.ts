import { Hono } from "hono";
import { HTTPException } from "hono/http-exception";
import { CLAIM_HEADER, CLAIMANT, DuetError, execRequestSchema, messageRequestSchema, STREAM_EVENTS_HEADER, stopRequestSchema, type MessageRequest } from "@duet/shared";
import { ConfigError, loadConfig } from "../config.ts";
import type { Env } from "../room/duet-agent.ts";
import { claimRoutes } from "../claims/routes.ts";
import { paceRoutes } from "../pace/routes.ts";
import { installationRoutes } from "../installations/routes.ts";
import type { LiveOutcome, StreamOptions } from "../live/live-turns.ts";
import { SSE_HEADERS } from "../live/sse.ts";
import { requireToken } from "./auth.ts";
import { controlRoutes, resetBy } from "./control-routes.ts";
import { repoRoutes } from "./repo-routes.ts";
import { fileRoutes } from "./file-routes.ts";
import { deliveryRoutes } from "./delivery-routes.ts";
import { scheduleRoutes } from "./schedule-routes.ts";
import { info } from "./info.ts";
import { limitBody } from "./json-body.ts";
import { room, send } from "./rooms.ts";
import { methodNotAllowed, readJson } from "../request.ts";

type App = { Bindings: Env };

/** A client asks for the live stream with `Accept: text/event-stream`; anything else gets the JSON answer. */
function wantsStream(accept: string | undefined): boolean {
  return /(^|,)\s*text\/event-stream\s*(;|,|$)/i.test(accept ?? "");
}

/** The optional stream events a client reads, from its comma-separated list (names it does not know are ignored). */
function streamOptions(list: string | undefined): StreamOptions {
  const names = (list ?? "").split(",").map((n) => n.trim().toLowerCase());
  return { queued: names.includes("queued") };
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

export const app = new Hono<App>();

// Settings are read before anything else (once per isolate): a Worker with a
// malformed one answers every request, health checks too, with the one line
// naming it (503), rather than working in part.
app.use("*", async (c, next) => {
  loadConfig(c.env);
  await next();
});

app.get("/health", (c) => c.text("ok"));

app.use("/api/*", requireToken);
// A file upload streams through to the sandbox; every other body is small JSON.
app.use("/api/*", (c, next) => (c.req.method === "PUT" && /^\/api\/rooms\/[^/]+\/files\//.test(c.req.path) ? next() : limitBody(c, next)));

app.get("/api/info", info);
app.all("/api/info", methodNotAllowed);

app.post("/api/rooms/:roomId/message", async (c) => {
  const stub = room(c.env, c.req.param("roomId"));
  const body = await readJson(c, messageRequestSchema);
  const claim = claimOf(c.req.header(CLAIM_HEADER), body);
  if (!wantsStream(c.req.header("accept"))) return send(await stub.message(body, claim));
  // The RPC types cannot express a stream inside a union; at run time it crosses as a byte stream.
  const live = (await stub.messageStream(body, streamOptions(c.req.header(STREAM_EVENTS_HEADER)), claim)) as unknown as LiveOutcome;
  return live.stream ? new Response(live.stream, { status: 200, headers: SSE_HEADERS }) : send(live);
});
app.all("/api/rooms/:roomId/message", methodNotAllowed);

app.post("/api/rooms/:roomId/stop", async (c) => {
  const stub = room(c.env, c.req.param("roomId"));
  return send(await stub.stop(await readJson(c, stopRequestSchema)));
});
app.all("/api/rooms/:roomId/stop", methodNotAllowed);

app.post("/api/rooms/:roomId/sandbox/exec", async (c) => {
  const stub = room(c.env, c.req.param("roomId"));
  return send(await stub.exec(await readJson(c, execRequestSchema)));
});
app.all("/api/rooms/:roomId/sandbox/exec", methodNotAllowed);

app.get("/api/rooms/:roomId/messages", async (c) => {
  return send(await room(c.env, c.req.param("roomId")).messages());
});
app.all("/api/rooms/:roomId/messages", methodNotAllowed);

app.get("/api/rooms/:roomId/stats", async (c) => {
  return send(await room(c.env, c.req.param("roomId")).stats());
});
app.all("/api/rooms/:roomId/stats", methodNotAllowed);

app.route("/", controlRoutes);
app.route("/", repoRoutes);
app.route("/", deliveryRoutes);
app.route("/", scheduleRoutes);
app.route("/", installationRoutes);
app.route("/", claimRoutes);
app.route("/", paceRoutes);
app.route("/", fileRoutes);

app.delete("/api/rooms/:roomId", async (c) => {
  const stub = room(c.env, c.req.param("roomId"));
  return send(await stub.cleanup(resetBy(c.req.query("userId"))));
});
app.all("/api/rooms/:roomId", methodNotAllowed);

app.notFound(() => Response.json({ error: "not found", code: "not_found" }, { status: 404 }));

app.onError((err) => {
  if (err instanceof DuetError) return Response.json(err.toBody(), { status: err.status });
  // hono's middleware (bearerAuth) answers this way; its response carries our JSON body.
  if (err instanceof HTTPException) return err.getResponse();
  if (err instanceof ConfigError) return Response.json({ error: err.message, code: "internal" }, { status: 503 });
  // Never a stack trace to the caller; the log keeps it for the operator.
  console.error("unhandled error", err);
  return Response.json({ error: "internal error", code: "internal" }, { status: 500 });
});
