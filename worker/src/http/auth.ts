import type { MiddlewareHandler } from "hono";
import { bearerAuth } from "hono/bearer-auth";
import { DuetError } from "@duet/shared";
import { loadConfig, type WorkerConfig } from "../config.ts";
import type { Env } from "../env.ts";

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
 * hono's bearerAuth compares in constant time; a missing, malformed or wrong
 * header is the same 401 with our JSON body.
 */
export const requireToken: Handler = async (c, next) => {
  const config = loadConfig(c.env);
  if (!config.DUET_API_TOKEN) {
    throw new DuetError("unauthorized", "the Worker has no DUET_API_TOKEN set, so its API is closed", { status: 503 });
  }
  let check = checks.get(config);
  if (!check) {
    const token = [config.DUET_API_TOKEN, config.DUET_API_TOKEN_PREVIOUS].filter((t): t is string => Boolean(t));
    check = bearerAuth({
      token,
      noAuthenticationHeader: { message: refused },
      invalidAuthenticationHeader: { message: refused },
      invalidToken: { message: refused },
    });
    checks.set(config, check);
  }
  return check(c, next);
};
