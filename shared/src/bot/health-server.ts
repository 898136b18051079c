import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

/**
 * `GET /healthz` for a bot process: 200 `{"ok":true}` while the bot can take
 * work, 503 `{"ok":false,"reason":"..."}` otherwise, so a load balancer, a
 * container runtime or Kubernetes stops sending it traffic or restarts it.
 * Node-only (node:http): imported as `@duet/shared/health`, never by the Worker.
 */

export type Health = { ok: true } | { ok: false; reason: string };

export const HEALTH_PATH = "/healthz";

/** Serves `GET /metrics` beside `/healthz` (BotMetrics, `@duet/shared/metrics`). */
export interface MetricsRoute {
  answer(req: IncomingMessage, res: ServerResponse): Promise<void>;
}

export const METRICS_PATH = "/metrics";

/** Answers one request with the current health (or the metrics, when given); other paths are 404 and other methods 405. */
export function answerHealth(check: () => Health, req: IncomingMessage, res: ServerResponse, metrics?: MetricsRoute): void {
  const path = new URL(req.url ?? "/", "http://x").pathname;
  if (metrics && path === METRICS_PATH) return void metrics.answer(req, res);
  if (path !== HEALTH_PATH) return sendJson(res, 404, { error: "not found" });
  if (req.method !== "GET" && req.method !== "HEAD") return sendJson(res, 405, { error: "method not allowed" }, { allow: "GET, HEAD" });
  const health = check();
  sendJson(res, health.ok ? 200 : 503, health);
}

export interface HealthServer {
  readonly port: number;
  close(): Promise<void>;
}

/** A server for `/healthz` (and `/metrics` with `metrics`), for bots with no HTTP port of their own (HEALTH_PORT). */
export async function startHealthServer(port: number, check: () => Health, host?: string, metrics?: MetricsRoute): Promise<HealthServer> {
  const server: Server = createServer((req, res) => answerHealth(check, req, res, metrics));
  // A probe that hangs up early must not leave sockets behind.
  server.keepAliveTimeout = 1_000;
  await new Promise<void>((resolve, reject) => {
    server.once("error", (err: NodeJS.ErrnoException) =>
      reject(new Error(err.code === "EADDRINUSE" ? `HEALTH_PORT ${port} is already in use` : `cannot listen on HEALTH_PORT ${port}: ${err.message}`)),
    );
    server.listen(port, host, () => resolve());
  });
  return {
    port: (server.address() as AddressInfo).port,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(status, { "content-type": "application/json", "cache-control": "no-store", ...headers });
  res.end(JSON.stringify(body));
}
