import { Sandbox } from "@cloudflare/sandbox";
import { loadConfig } from "../config.ts";
import type { Vars } from "../vars.ts";
import { containerNetwork } from "./container-network.ts";

/**
 * The `Sandbox` Durable Object production binds (wrangler.toml [env.production]):
 * the SDK's class, with the container's network set from SANDBOX_NETWORK and its
 * host lists instead of the SDK's default (the whole internet).
 *
 * Set in the constructor, which runs before the container starts and before the
 * base classes read these fields (they do so after their first await).
 */
export class DuetSandbox extends Sandbox<Vars> {
  constructor(ctx: DurableObjectState<{}>, env: Vars) {
    super(ctx, env);
    const network = containerNetwork(loadConfig(env).network);
    this.enableInternet = network.enableInternet;
    this.allowedHosts = network.allowedHosts;
    this.deniedHosts = network.deniedHosts;
    this.interceptHttps = network.interceptHttps;
  }
}

/**
 * The outbound proxy host rules run in: @cloudflare/containers finds it in the
 * Worker's exports (ctx.exports.ContainerProxy), so the entry point must export it.
 */
export { ContainerProxy } from "@cloudflare/sandbox";
