import { DRAIN_MS } from "@duet/shared";
import { createDiscordBot } from "./bot.ts";
import { ConfigError, loadConfig } from "./config.ts";

/** `pnpm dev:discord`: read the config once, connect, and stop cleanly on SIGINT/SIGTERM. */

let config;
try {
  config = loadConfig();
} catch (err) {
  if (err instanceof ConfigError) {
    console.error(`[discord] configuration error: ${err.message}`);
    process.exit(1);
  }
  throw err;
}

// A structurally broken gateway packet can make discord.js throw inside its own
// async handlers; log it and keep serving everyone else instead of exiting.
process.on("unhandledRejection", (err) => console.error(`[discord] unhandled rejection: ${err instanceof Error ? err.message : String(err)}`));

const bot = createDiscordBot(config);
const shutdown = async () => {
  await bot.stop(DRAIN_MS);
  process.exit(0);
};
process.once("SIGINT", shutdown);
process.once("SIGTERM", shutdown);

try {
  await bot.start();
} catch (err) {
  console.error(`[discord] could not connect to Discord: ${err instanceof Error ? err.message : String(err)}`);
  process.exit(1);
}
