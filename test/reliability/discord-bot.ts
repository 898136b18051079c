import { createDiscordBot, type DiscordBot } from "@duet/discord";
import { botConfig } from "../discord/harness.ts";
import type { FakeDiscord } from "../fakes/discord/index.ts";
import type { Stack } from "../helpers/stack.ts";

/**
 * A second discord.js bot process on a fake Discord that a harness already
 * serves: what a restarted (or redeployed) bot looks like to Discord. The
 * harness in test/discord/ ties its bot to its own fake, so a restart needs
 * this. Its log is kept quiet; tests read what it did from the fake's calls.
 */
export async function startAnotherDiscordBot(fake: FakeDiscord, worker: Pick<Stack, "workerUrl" | "token">): Promise<DiscordBot> {
  const config = botConfig(fake, worker);
  const quiet = () => {};
  const bot = createDiscordBot(config, { log: { info: quiet, warn: quiet, error: quiet }, rest: { globalRequestsPerSecond: 1_000, timeout: 10_000 } });
  await bot.start();
  return bot;
}
