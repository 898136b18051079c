import type { Hono } from "hono";
import { DuetError } from "@duet/shared";

/** The order `Allow` names methods in; `ALL` (middleware, catch-alls) is not a method a client can be told to use. */
const METHODS = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE"];

/**
 * Each path the app answers and the methods it answers it with. hono answers
 * HEAD with the GET route (and no body), and a route ending in `/*` answers
 * the bare path too (`/files/*` takes `/files`), so both are counted where
 * hono applies them.
 */
export function allowedMethods(app: Hono<any>): Map<string, string[]> {
  const byPath = new Map<string, Set<string>>();
  for (const { method, path } of app.routes) {
    if (!METHODS.includes(method)) continue;
    const methods = byPath.get(path) ?? new Set<string>();
    methods.add(method);
    if (method === "GET") methods.add("HEAD");
    byPath.set(path, methods);
  }
  for (const [path, methods] of byPath) {
    if (!path.endsWith("/*")) continue;
    const bare = byPath.get(path.slice(0, -2));
    if (bare) for (const m of methods) bare.add(m);
  }
  return new Map([...byPath].map(([path, methods]) => [path, METHODS.filter((m) => methods.has(m))]));
}

/**
 * Answers any other method on a path the app knows with 405 and an `Allow`
 * header naming the ones it takes. Called once, after every route is added,
 * so a new route is covered without writing its 405. The middleware before
 * it (the token, the room id) still runs first.
 */
export function answerOtherMethods(app: Hono<any>): void {
  for (const [path, methods] of allowedMethods(app)) {
    const allow = methods.join(", ");
    app.all(path, () => Response.json(new DuetError("method_not_allowed", "method not allowed").toBody(), { status: 405, headers: { allow } }));
  }
}
