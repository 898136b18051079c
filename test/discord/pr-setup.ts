import { startPrHost, type PrHost, type PrHostOptions } from "../helpers/pr-host.ts";
import { type DiscordSetup, startDiscordSetup } from "./harness.ts";

/** The Discord bot and the real Worker and executor, pointed at a fake GitHub with a real git host (`vars`: more Worker variables; `hostOpts`: a plain git remote instead, or the executor's settings). */
export async function startDiscordPrSetup(vars: Record<string, string> = {}, hostOpts: PrHostOptions = {}): Promise<DiscordSetup & { host: PrHost }> {
  const host = await startPrHost(hostOpts);
  const setup = await startDiscordSetup({ stack: { executor: "real", vars: { ...host.vars, MODEL_TIMEOUT_MS: "30000", ...vars } } }).catch(async (err) => {
    await host.stop();
    throw err;
  });
  return { ...setup, host, stop: async () => (await setup.stop(), await host.stop()) };
}
