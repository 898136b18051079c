import type { MiddlewareHandler } from "hono";
import { DuetError } from "@duet/shared";
import { loadConfig } from "../config.ts";
import type { Env } from "../env.ts";

const encoder = new TextEncoder();

/** Compares in time that depends only on the lengths, so the token cannot be guessed byte by byte. */
export function timingSafeEqualText(a: string, b: string): boolean {
  const x = encoder.encode(a);
  const y = encoder.encode(b);
  let diff = x.length ^ y.length;
  const n = Math.max(x.length, y.length);
  for (let i = 0; i < n; i++) diff |= (x[i % (x.length || 1)] ?? 0) ^ (y[i % (y.length || 1)] ?? 0);
  return diff === 0;
}

/**
 * Every /api route needs `Authorization: Bearer $DUET_API_TOKEN`; with no token
 * configured, nothing is open. During a rotation DUET_API_TOKEN_PREVIOUS is
 * accepted too (never on its own), so bots can move over without downtime.
 */
export const requireToken: MiddlewareHandler<{ Bindings: Env }> = async (c, next) => {
  const config = loadConfig(c.env);
  const token = config.DUET_API_TOKEN;
  if (!token) {
    throw new DuetError("unauthorized", "the Worker has no DUET_API_TOKEN set, so its API is closed", { status: 503 });
  }
  const header = c.req.header("authorization") ?? "";
  const match = /^Bearer\s+(.+)$/i.exec(header);
  const given = match?.[1].trim() ?? "";
  const previous = config.DUET_API_TOKEN_PREVIOUS;
  // Both compared every time, so the timing does not say which one matched.
  const current = timingSafeEqualText(given, token);
  const old = previous ? timingSafeEqualText(given, previous) : false;
  if (!match || !(current || old)) {
    throw new DuetError("unauthorized", "missing or wrong API token (Authorization: Bearer <DUET_API_TOKEN>)");
  }
  await next();
};
