import { createSlackBot } from "./app.ts";
import { ConfigError, loadConfig } from "./config.ts";

/**
 * `pnpm dev:slack`: read the config once, start the bot, stop cleanly on
 * SIGINT/SIGTERM. A bad config or a refused token ends start-up with one line.
 */

async function main(): Promise<void> {
  let config;
  try {
    config = loadConfig();
  } catch (err) {
    if (err instanceof ConfigError) {
      console.error(`duet-slack: ${err.message}`);
      process.exit(1);
    }
    throw err;
  }
  const bot = createSlackBot(config);
  try {
    await bot.start();
  } catch (err) {
    console.error(`duet-slack: ${(err as Error).message}`);
    process.exit(1);
  }
  let stopping = false;
  const shutdown = (signal: string) => {
    if (stopping) return;
    stopping = true;
    console.log(`duet-slack: ${signal} received, finishing answers in flight`);
    bot.stop().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.on("SIGINT", () => shutdown("SIGINT"));
  process.on("SIGTERM", () => shutdown("SIGTERM"));
}

void main();
