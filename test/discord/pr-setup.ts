import { startPrHost, type PrHost } from "../helpers/pr-host.ts";
import { type DiscordSetup, startDiscordSetup } from "./harness.ts";

/** The Discord bot and the real Worker and executor, pointed at a fake GitHub with a real git host (`vars`: more Worker variables; `gitRemote`: a plain git remote instead). */
export async function startDiscordPrSetup(vars: Record<string, string> = {}, hostOpts: { gitRemote?: boolean } = {}): Promise<DiscordSetup & { host: PrHost }> {
  const host = await startPrHost(hostOpts);
  const setup = await startDiscordSetup({ stack: { executor: "real", vars: { ...host.vars, MODEL_TIMEOUT_MS: "30000", ...vars } } }).catch(async (err) => {
    await host.stop();
    throw err;
  });
  return { ...setup, host, stop: async () => (await setup.stop(), await host.stop()) };
}
