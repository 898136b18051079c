import { Sandbox } from "@cloudflare/sandbox";
import { loadConfig } from "../config.ts";
import type { Vars } from "../vars.ts";
import { containerNetwork } from "./container-network.ts";
import { saveWorkspace, savedKey } from "./workspace-archive.ts";

/**
 * The `Sandbox` Durable Object production binds (wrangler.toml [env.production]):
 * the SDK's class, with the container's network set from SANDBOX_NETWORK and its
 * host lists instead of the SDK's default (the whole internet), and the room's
 * workspace saved before the container goes to sleep.
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

  /**
   * The container has been idle for `sleepAfter` and is about to be stopped
   * (its disk with it): the workspace is saved first, when it changed since
   * the last save. A turn saves after it runs commands; this catches what
   * changed without one (a process left running in the background).
   */
  override async onActivityExpired(): Promise<void> {
    const bucket = this.env.WORKSPACES;
    const id = this.ctx.id.name;
    if (bucket && id && this.ctx.container?.running) {
      try {
        await saveWorkspace(this, bucket, savedKey(id), loadConfig(this.env).SANDBOX_WORKSPACE_MAX_BYTES);
      } catch (err) {
        // Nobody is waiting on a sleep: the next turn's save says so in the thread, if it fails too.
        console.error(`[sandbox] the workspace was not saved before sleep: ${(err as Error).message}`);
      }
    }
    await super.onActivityExpired();
  }
}

/**
 * The outbound proxy host rules run in: @cloudflare/containers finds it in the
 * Worker's exports (ctx.exports.ContainerProxy), so the entry point must export it.
 */
export { ContainerProxy } from "@cloudflare/sandbox";
