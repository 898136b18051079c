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

/**
 * Answers delivery confirms sent and answered: `after(n)` resolves once this
 * process's Worker has answered `n` of them (POST /api/rooms/:id/deliveries,
 * which a bot sends once it posted an answer). A benchmark waits on it before
 * its next turn, so a turn is not measured while the previous answer's confirm
 * is still being written (Slack's turns end at the ✅, which comes after it).
 */
export function countConfirms(workerUrl: string): { after(n: number): Promise<void> } {
  const target = new URL(workerUrl);
  const confirms = new WeakSet<object>();
  let answered = 0;
  let waiting: { n: number; resolve: () => void }[] = [];
  diagnostics.subscribe("undici:request:create", (msg) => {
    const request = (msg as { request: { origin?: unknown; method?: string; path?: string } }).request;
    if (String(request.origin ?? "").replace(/\/$/, "") !== target.origin) return;
    if (request.method === "POST" && /^\/api\/rooms\/[^/]+\/deliveries$/.test(String(request.path ?? ""))) confirms.add(request);
  });
  const done = (msg: unknown) => {
    if (!confirms.has((msg as { request: object }).request)) return;
    answered += 1;
    waiting = waiting.filter((w) => (w.n <= answered ? (w.resolve(), false) : true));
  };
  diagnostics.subscribe("undici:request:trailers", done);
  diagnostics.subscribe("undici:request:error", done);
  return { after: (n) => (n <= answered ? Promise.resolve() : new Promise<void>((resolve) => waiting.push({ n, resolve }))) };
}
