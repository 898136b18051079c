import type { Context } from "hono";
import type { InfoResponse } from "@duet/shared";
import { loadConfig } from "../config.ts";
import type { Env } from "../room/duet-agent.ts";

/** GET /api/info: how this Worker is set up, for the bots' `/duet help` (e.g. whether `pip install` will work). */
export function info(c: Context<{ Bindings: Env }>): Response {
  const config = loadConfig(c.env);
  const body: InfoResponse = {
    sandbox: {
      provider: config.SANDBOX_PROVIDER,
      network: config.network.network,
      allowedHosts: config.network.allowedHosts,
      deniedHosts: config.network.deniedHosts,
    },
  };
  return c.json(body);
}
