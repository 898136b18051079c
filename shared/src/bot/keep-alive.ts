import type { Server } from "node:http";

/**
 * How long our Node servers keep an idle keep-alive connection open: longer than
 * any client here keeps one in its pool (undici 4 s; workerd longer than Node's
 * 5 s default, as seen under load, but far less than this).
 */
export const IDLE_CONNECTION_MS = 120_000;

/**
 * Makes `server` keep idle connections open longer than its clients do, so the
 * client is always the side that closes one. With Node's 5 s default, the server
 * closes an idle connection just as a pooled client sends its next request on it:
 * the request is lost ("Network connection lost" in workerd, "other side closed"
 * in undici), and a request that runs a command cannot be retried blindly.
 */
export function outlastPooledClients<S extends Server>(server: S): S {
  server.keepAliveTimeout = IDLE_CONNECTION_MS;
  // Node counts the wait for a reused connection's next headers in this one too.
  server.headersTimeout = IDLE_CONNECTION_MS + 1_000;
  return server;
}
