import diagnostics from "node:diagnostics_channel";

/**
 * Counts what this process's HTTP client does with one origin (the Worker):
 * requests sent and TCP connections opened. undici (behind Node's fetch)
 * publishes both on diagnostics channels, so nothing in the bot is changed to
 * count them. Requests ÷ connections shows whether connections are reused.
 */
export function countWorkerTraffic(workerUrl: string): () => { workerRequests: number; workerConnections: number } {
  const target = new URL(workerUrl);
  let workerRequests = 0;
  let workerConnections = 0;
  diagnostics.subscribe("undici:request:create", (msg) => {
    const origin = String((msg as { request: { origin?: unknown } }).request.origin ?? "");
    if (origin.replace(/\/$/, "") === target.origin) workerRequests += 1;
  });
  diagnostics.subscribe("undici:client:connected", (msg) => {
    const p = (msg as { connectParams: { hostname?: string; port?: string | number } }).connectParams;
    if (p.hostname === target.hostname && String(p.port) === target.port) workerConnections += 1;
  });
  return () => ({ workerRequests, workerConnections });
}
