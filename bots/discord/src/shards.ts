import { fileURLToPath } from "node:url";
import { startHealthServer } from "@duet/shared/health";
import { REST, Routes, ShardingManager } from "discord.js";
import { restOptions } from "./bot.ts";
import { ConfigError, loadConfig, type DiscordConfig } from "./config.ts";
import { shardsHealth } from "./health.ts";

/**
 * `pnpm --filter @duet/discord start:sharded`: one process per shard, each
 * running `main.ts`. The bot keeps no state a shard would need from another
 * (rooms live in the Worker; a guild's events always reach the same shard), so
 * shards need no coordination beyond discord.js's own spawn pacing. The
 * manager serves /healthz on HEALTH_PORT for all of them.
 */

let config;
try {
  config = loadConfig();
} catch (err) {
  if (!(err instanceof ConfigError)) throw err;
  console.error(`[discord] configuration error: ${err.message}`);
  process.exit(1);
}

/** Discord's recommendation, asked through DISCORD_API_URL (discord.js's own "auto" always asks discord.com). */
async function recommendedShards(c: DiscordConfig): Promise<number> {
  const rest = new REST(restOptions(c)).setToken(c.token);
  const { shards } = (await rest.get(Routes.gatewayBot())) as { shards: number };
  return shards;
}

const totalShards = config.shardCount === "auto" ? await recommendedShards(config) : config.shardCount;
// From source, shards run TypeScript through tsx as `pnpm dev:discord` does; built, they run main.js.
const fromSource = import.meta.url.endsWith(".ts");
const manager = new ShardingManager(fileURLToPath(new URL(fromSource ? "./main.ts" : "./main.js", import.meta.url)), {
  token: config.token,
  totalShards,
  // Built, each shard runs with the flags the manager was started with (scripts/build/runtime.ts).
  execArgv: fromSource ? ["--import", "tsx"] : process.execArgv,
});
manager.on("shardCreate", (shard) => console.log(`[discord] started shard ${shard.id + 1} of ${manager.totalShards}`));
let stopping = false;
if (config.healthPort !== undefined) {
  try {
    const health = await startHealthServer(config.healthPort, () => shardsHealth(manager, totalShards, stopping));
    console.log(`[discord] /healthz on port ${health.port}`);
  } catch (err) {
    console.error(`[discord] ${(err as Error).message}`);
    process.exit(1);
  }
}
// Children are separate processes: stop them with the manager.
const shutdown = () => {
  stopping = true;
  for (const shard of manager.shards.values()) shard.kill();
  process.exit(0);
};
process.once("SIGINT", shutdown);
process.once("SIGTERM", shutdown);
await manager.spawn();
