import { checkWorkerToken } from "@duet/shared";
import { failStartup } from "@duet/shared/startup";
import type { DiscordConfig } from "./config.ts";

/**
 * A wrong DUET_API_TOKEN would fail every turn: better not to start. An unreachable
 * Worker is different: it may come up later, and the bot says so in chat meanwhile.
 * The sharding manager checks too, so a refused token is one line rather than one per shard.
 */
export async function checkWorkerOrFail(config: DiscordConfig): Promise<void> {
  const token = await checkWorkerToken(config.workerUrl, config.apiToken);
  if (token.status === "refused") failStartup("discord", token.reason);
  if (token.status === "unknown") console.warn(`[discord] could not check DUET_API_TOKEN: ${token.reason}`);
}
