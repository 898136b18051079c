import type { IncomingMessage, Server, ServerResponse } from "node:http";
import { createAdaptorServer } from "@hono/node-server";
import { Hono, type Context } from "hono";
import { redactSecrets } from "@duet/shared";
import { outlastPooledClients } from "@duet/shared/keep-alive";
import type { Executor } from "./executor.ts";
import { fileRoutes } from "./files/routes.ts";
import { gitRoutes } from "./git/routes.ts";
import { HttpError, isAuthorized, readJson } from "./http.ts";
import { BusyError } from "./queue.ts";
import { EXECUTE_BODY_MAX_BYTES, parseExecuteRequest, sessionIdSchema } from "./validation.ts";

/**
 * The container control API's shape, as the Worker's `local` sandbox provider speaks it:
 *
 *   POST   /api/execute              {command, sessionId, timeoutMs?, person?} → {success, exitCode, stdout, stderr, duration, truncated, timedOut}
 *   DELETE /api/sessions/:sessionId  → {success: true}
 *   GET    /api/ping                 → {ok: true, isolation}
 *   /api/sessions/:sessionId/files   the workspace files API (files/routes.ts)
 *
 * Every route but ping needs `Authorization: Bearer $SANDBOX_TOKEN` when a token is
 * set; ping is open so start-up scripts can wait for readiness, and says nothing secret.
 */

type Bindings = { incoming: IncomingMessage; outgoing: ServerResponse };
type Ctx = Context<{ Bindings: Bindings }>;

export function createExecutorServer(executor: Executor, token: string | undefined): Server {
  const app = new Hono<{ Bindings: Bindings }>();

  app.get("/api/ping", (c) => c.json({ ok: true, isolation: executor.isolation }));

  app.use("/api/*", async (c, next) => {
    if (!isAuthorized(c.env.incoming, token)) throw new HttpError(401, "missing or wrong Authorization: Bearer <SANDBOX_TOKEN>");
    await next();
  });

  app.post("/api/execute", async (c) => {
    const parsed = parseExecuteRequest(await readJson(c.env.incoming, EXECUTE_BODY_MAX_BYTES));
    if (!parsed.ok) throw new HttpError(400, parsed.error, parsed.details);
    const { command, sessionId, timeoutMs, person } = parsed.value;
    // The caller hung up before the answer was sent: stop the command.
    const hangup = new AbortController();
    const res = c.env.outgoing;
    res.once("close", () => {
      if (!res.writableFinished) hangup.abort();
    });
    const r = await executor.exec(sessionId, command, timeoutMs, hangup.signal, person);
    return c.json({
      success: r.exitCode === 0,
      exitCode: r.exitCode,
      stdout: r.stdout,
      stderr: r.stderr,
      duration: r.durationMs,
      truncated: r.truncated,
      timedOut: r.timedOut,
    });
  });
  app.all("/api/execute", notAllowed(["POST"]));

  app.delete("/api/sessions/:sessionId", async (c) => {
    const checked = sessionIdSchema.safeParse(c.req.param("sessionId"));
    if (!checked.success) throw new HttpError(400, checked.error.issues[0].message);
    await executor.destroy(checked.data);
    return c.json({ success: true });
  });
  app.all("/api/sessions/:sessionId", notAllowed(["DELETE"]));

  app.route("/", fileRoutes(executor));
  app.route("/", gitRoutes(executor));
  app.all("/api/git/checkout", notAllowed(["POST"]));
  app.all("/api/sessions/:sessionId/files/*", notAllowed(["GET", "PUT"]));

  app.notFound((c) => c.json({ error: `no route ${c.req.method} ${new URL(c.req.url).pathname}` }, 404));

  app.onError((err, c) => {
    if (err instanceof HttpError) {
      const body = err.details && Object.keys(err.details).length ? { error: err.message, details: err.details } : { error: err.message };
      return c.json(body, err.status as 400);
    }
    if (err instanceof BusyError) return c.json({ error: err.message }, 503, { "retry-after": "1" });
    // Our own failure (cannot spawn, disk full): say what, never a stack trace, and
    // log it redacted (our own token included): a message may quote what it was given.
    const message = redactSecrets(err instanceof Error ? err.message : String(err), token ? [token] : []);
    console.error(`[sandbox] ${c.req.method} ${new URL(c.req.url).pathname}: ${message}`);
    return c.json({ error: `executor failed: ${message}` }, 500);
  });

  return outlastPooledClients(createAdaptorServer({ fetch: app.fetch }) as Server);
}

/** 405 naming the methods the route takes, with Allow. */
function notAllowed(methods: string[]) {
  return (c: Ctx) => {
    c.header("allow", methods.join(", "));
    throw new HttpError(405, `${c.req.method} is not allowed on ${new URL(c.req.url).pathname}; use ${methods.join(" or ")}`);
  };
}
