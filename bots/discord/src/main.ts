import { checkWorkerToken, DRAIN_MS } from "@duet/shared";
import { startHealthServer, type HealthServer } from "@duet/shared/health";
import { createDiscordBot } from "./bot.ts";
import { ConfigError, loadConfig } from "./config.ts";

/**
 * `pnpm dev:discord` / `pnpm start:discord`: read the config once, check the
 * Worker's token, connect (with /healthz on HEALTH_PORT), and stop cleanly on
 * SIGINT/SIGTERM. A bad config or a refused token ends start-up with one line.
 */

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

// A wrong DUET_API_TOKEN would fail every turn: better not to start. An unreachable
// Worker is different: it may come up later, and the bot says so in chat meanwhile.
const token = await checkWorkerToken(config.workerUrl, config.apiToken);
if (token.status === "refused") {
  console.error(`[discord] ${token.reason}`);
  process.exit(1);
}
if (token.status === "unknown") console.warn(`[discord] could not check DUET_API_TOKEN: ${token.reason}`);

// A structurally broken gateway packet can make discord.js throw inside its own
// async handlers; log it and keep serving everyone else instead of exiting.
process.on("unhandledRejection", (err) => console.error(`[discord] unhandled rejection: ${err instanceof Error ? err.message : String(err)}`));

const bot = createDiscordBot(config);
let health: HealthServer | undefined;
const shutdown = async () => {
  // /healthz answers 503 while the bot drains.
  await bot.stop(DRAIN_MS);
  await health?.close();
  process.exit(0);
};
process.once("SIGINT", shutdown);
process.once("SIGTERM", shutdown);

// Under ShardingManager every shard is a process of its own; the manager serves /healthz for all.
if (config.healthPort !== undefined && !process.env.SHARDING_MANAGER) {
  try {
    health = await startHealthServer(config.healthPort, () => bot.health());
    console.log(`[discord] /healthz on port ${health.port}`);
  } catch (err) {
    console.error(`[discord] ${(err as Error).message}`);
    process.exit(1);
  }
}

try {
  await bot.start();
} catch (err) {
  console.error(`[discord] could not connect to Discord: ${err instanceof Error ? err.message : String(err)}`);
  process.exit(1);
}
