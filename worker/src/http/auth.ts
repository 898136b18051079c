import type { MiddlewareHandler } from "hono";
import { bearerAuth } from "hono/bearer-auth";
import { DuetError } from "@duet/shared";
import { loadConfig, type WorkerConfig } from "../config.ts";
import type { Env } from "../room/duet-agent.ts";

type Handler = MiddlewareHandler<{ Bindings: Env }>;

const refused = () => {
  const err = new DuetError("unauthorized", "missing or wrong API token (Authorization: Bearer <DUET_API_TOKEN>)");
  return Response.json(err.toBody(), { status: err.status });
};

/** One bearerAuth per config (the config is parsed once per isolate), so its options are built once. */
const checks = new WeakMap<WorkerConfig, Handler>();

/**
 * Every /api route needs `Authorization: Bearer $DUET_API_TOKEN`; with no token
 * configured, nothing is open. During a rotation DUET_API_TOKEN_PREVIOUS is
 * accepted too (never on its own), so bots can move over without downtime.
 * A missing, malformed or wrong header is the same 401 with our JSON body.
 */
export const requireToken: Handler = async (c, next) => {
  const config = loadConfig(c.env);
  if (!config.DUET_API_TOKEN) {
    throw new DuetError("unauthorized", "the Worker has no DUET_API_TOKEN set, so its API is closed", { status: 503 });
  }
  let check = checks.get(config);
  if (!check) {
    const tokens = [config.DUET_API_TOKEN, config.DUET_API_TOKEN_PREVIOUS].filter((t): t is string => Boolean(t));
    check = bearerAuth({
      // Not `token`: bearerAuth would hash both sides with SHA-256 for every token on every request.
      verifyToken: (given) => tokens.reduce((ok, token) => sameToken(given, token) || ok, false),
      noAuthenticationHeader: { message: refused },
      invalidAuthenticationHeader: { message: refused },
      invalidToken: { message: refused },
    });
    checks.set(config, check);
  }
  return check(c, next);
};

/**
 * Constant-time comparison: the time depends only on the configured token's
 * length, never on where the given one first differs or on how long it is.
 */
export function sameToken(given: string, token: string): boolean {
  let diff = given.length ^ token.length;
  for (let i = 0; i < token.length; i++) diff |= (given.charCodeAt(i) | 0) ^ token.charCodeAt(i);
  return diff === 0;
}
