import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { redactSecrets } from "@duet/shared";
import { outlastPooledClients } from "@duet/shared/keep-alive";
import type { Executor } from "./executor.ts";
import { HttpError, isAuthorized, readJson, sendJson } from "./http.ts";
import { BusyError } from "./queue.ts";
import { EXECUTE_BODY_MAX_BYTES, parseExecuteRequest, sessionIdSchema } from "./validation.ts";

/**
 * The container control API's shape, as the Worker's `local` sandbox provider speaks it:
 *
 *   POST   /api/execute              {command, sessionId, timeoutMs?} → {success, exitCode, stdout, stderr, duration, truncated, timedOut}
 *   DELETE /api/sessions/:sessionId  → {success: true}
 *   GET    /api/ping                 → {ok: true, isolation}
 *
 * Every route but ping needs `Authorization: Bearer $SANDBOX_TOKEN` when a token is
 * set; ping is open so start-up scripts can wait for readiness, and says nothing secret.
 */

type Handler = (req: IncomingMessage, res: ServerResponse, params: string[]) => Promise<void>;

interface Route {
  pattern: RegExp;
  methods: Record<string, Handler>;
  open?: boolean;
}

export function createExecutorServer(executor: Executor, token: string | undefined): Server {
  const routes: Route[] = [
    {
      pattern: /^\/api\/ping$/,
      open: true,
      methods: { GET: async (_req, res) => sendJson(res, 200, { ok: true, isolation: executor.isolation }) },
    },
    {
      pattern: /^\/api\/execute$/,
      methods: {
        POST: async (req, res) => {
          const parsed = parseExecuteRequest(await readJson(req, EXECUTE_BODY_MAX_BYTES));
          if (!parsed.ok) throw new HttpError(400, parsed.error, parsed.details);
          const { command, sessionId, timeoutMs } = parsed.value;
          // The caller hung up before the answer was sent: stop the command.
          const hangup = new AbortController();
          res.once("close", () => {
            if (!res.writableFinished) hangup.abort();
          });
          const r = await executor.exec(sessionId, command, timeoutMs, hangup.signal);
          sendJson(res, 200, {
            success: r.exitCode === 0,
            exitCode: r.exitCode,
            stdout: r.stdout,
            stderr: r.stderr,
            duration: r.durationMs,
            truncated: r.truncated,
            timedOut: r.timedOut,
          });
        },
      },
    },
    {
      pattern: /^\/api\/sessions\/([^/]+)$/,
      methods: {
        DELETE: async (_req, res, [raw]) => {
          let id: string;
          try {
            id = decodeURIComponent(raw);
          } catch {
            throw new HttpError(400, "session id in the path is not valid URL encoding");
          }
          const checked = sessionIdSchema.safeParse(id);
          if (!checked.success) throw new HttpError(400, checked.error.issues[0].message);
          await executor.destroy(id);
          sendJson(res, 200, { success: true });
        },
      },
    },
  ];

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const path = new URL(req.url ?? "/", "http://executor").pathname;
    for (const route of routes) {
      const match = route.pattern.exec(path);
      if (!match) continue;
      if (!route.open && !isAuthorized(req, token)) {
        throw new HttpError(401, "missing or wrong Authorization: Bearer <SANDBOX_TOKEN>");
      }
      const handler = route.methods[req.method ?? ""];
      if (!handler) {
        res.setHeader("allow", Object.keys(route.methods).join(", "));
        throw new HttpError(405, `${req.method} is not allowed on ${path}; use ${Object.keys(route.methods).join(" or ")}`);
      }
      return handler(req, res, match.slice(1));
    }
    throw new HttpError(404, `no route ${req.method} ${path}`);
  };

  const server = createServer((req, res) => {
    handle(req, res).catch((err: unknown) => {
      if (res.headersSent) {
        res.end();
        return;
      }
      if (err instanceof HttpError) {
        const body = err.details && Object.keys(err.details).length ? { error: err.message, details: err.details } : { error: err.message };
        return sendJson(res, err.status, body);
      }
      if (err instanceof BusyError) return sendJson(res, 503, { error: err.message }, { "retry-after": "1" });
      // Our own failure (cannot spawn, disk full): say what, never a stack trace, and
      // log it redacted (our own token included): a message may quote what it was given.
      const message = redactSecrets(err instanceof Error ? err.message : String(err), token ? [token] : []);
      console.error(`[sandbox] ${req.method} ${new URL(req.url ?? "/", "http://executor").pathname}: ${message}`);
      sendJson(res, 500, { error: `executor failed: ${message}` });
    });
  });
  return outlastPooledClients(server);
}
