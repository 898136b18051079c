import { createServer } from "node:net";

/** Resolves when nothing listens on host:port yet, else rejects with the errno code (EADDRINUSE...). */
export function portFree(port: number, host = "127.0.0.1"): Promise<void> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", (err: NodeJS.ErrnoException) => reject(err));
    server.listen(port, host, () => server.close(() => resolve()));
  });
}

/**
 * Answers 2xx? Any failure (refused, 5xx) is "not yet". A request is given until the
 * deadline: a slow workerd still starting answers late, and one cut off mid-request
 * prints a `kj::` broken-pipe error with a stack into `pnpm dev`'s output.
 */
async function answers(url: string, deadline: number): Promise<boolean> {
  try {
    const res = await fetch(url, { signal: AbortSignal.timeout(Math.max(1, deadline - Date.now())) });
    await res.arrayBuffer();
    return res.ok;
  } catch {
    return false;
  }
}

/** Between readiness probes: wrangler gives no "ready" event we can rely on across versions. */
const PROBE_EVERY_MS = 250;

/**
 * Waits until every URL answers 2xx. Resolves false when `deadline` passes or
 * `cancelled()` turns true (a child died meanwhile), true when all answered.
 */
export async function waitUntilAnswering(urls: string[], deadline: number, cancelled: () => boolean): Promise<boolean> {
  const pending = new Set(urls);
  while (pending.size > 0) {
    if (cancelled() || Date.now() >= deadline) return false;
    for (const url of [...pending]) if (await answers(url, deadline)) pending.delete(url);
    if (pending.size > 0) await new Promise((r) => setTimeout(r, PROBE_EVERY_MS));
  }
  return !cancelled();
}
