import type { Hono } from "hono";
import { DuetError } from "@duet/shared";

/** The methods a route registers; `ALL` is middleware (or a catch-all), not a method a client can be told to use. */
const isMethod = (method: string) => method !== "ALL";

/** Each path the app answers and the methods it answers it with, in the order they were added. */
export function allowedMethods(app: Hono<any>): Map<string, string[]> {
  const byPath = new Map<string, string[]>();
  for (const { method, path } of app.routes) {
    if (!isMethod(method)) continue;
    const methods = byPath.get(path) ?? [];
    // hono answers HEAD with the GET route (and no body).
    for (const m of method === "GET" ? ["GET", "HEAD"] : [method]) if (!methods.includes(m)) methods.push(m);
    byPath.set(path, methods);
  }
  return byPath;
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
