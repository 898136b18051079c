import type { ChildProcess } from "node:child_process";
import { fileURLToPath } from "node:url";
import { DRAIN_MS } from "@duet/shared";
import { startHealthServer } from "@duet/shared/health";
import { configOrFail, failStartup } from "@duet/shared/startup";
import { REST, Routes, ShardingManager } from "discord.js";
import { restOptions } from "./bot.ts";
import { loadConfig, type DiscordConfig } from "./config.ts";
import { shardsHealth } from "./health.ts";
import { checkWorkerOrFail } from "./worker-check.ts";

/**
 * `pnpm --filter @duet/discord start:sharded`: one process per shard, each
 * running `main.ts`. The bot keeps no state a shard would need from another
 * (rooms live in the Worker; a guild's events always reach the same shard), so
 * shards need no coordination beyond discord.js's own spawn pacing. The
 * manager serves /healthz on HEALTH_PORT for all of them.
 */

const config = configOrFail("discord", loadConfig);

/** Discord's recommendation, asked through DISCORD_API_URL (discord.js's own "auto" always asks discord.com). */
async function recommendedShards(c: DiscordConfig): Promise<number> {
  const rest = new REST(restOptions(c)).setToken(c.token);
  const { shards } = (await rest.get(Routes.gatewayBot())) as { shards: number };
  return shards;
}

// Asked whatever the shard count: a refused token or an unreachable Discord stops start-up here, in one line,
// rather than in every shard and then in the manager.
const recommended = await recommendedShards(config).catch((err: unknown) => failStartup("discord", `could not connect to Discord: ${err instanceof Error ? err.message : String(err)}`));
await checkWorkerOrFail(config);
const totalShards = config.shardCount === "auto" ? recommended : config.shardCount;
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
    failStartup("discord", err);
  }
}
/** How long past a shard's own drain the manager waits before it gives up on it. */
const DRAIN_MARGIN_MS = 2_000;

/**
 * Children are separate processes, and in a container they die with the
 * manager: each is sent SIGTERM (it stops taking events and finishes the
 * answers in progress, up to DRAIN_MS) without being respawned, and the
 * manager exits once all have, or gives up after the drain and a margin.
 */
async function shutdown(done: () => never = stopped): Promise<void> {
  if (stopping) return;
  stopping = true;
  const children = [...manager.shards.values()].map((shard) => shard.process).filter((c): c is ChildProcess => c !== null);
  const exited = children.map((c) => (c.exitCode !== null || c.signalCode !== null ? Promise.resolve() : new Promise<void>((r) => c.once("exit", () => r()))));
  // kill() drops the manager's respawn-on-exit listener before it signals the shard.
  for (const shard of manager.shards.values()) shard.kill();
  const late = setTimeout(() => {
    console.error(`[discord] shards still running ${DRAIN_MS + DRAIN_MARGIN_MS} ms after the stop: exiting without them`);
    process.exit(1);
  }, DRAIN_MS + DRAIN_MARGIN_MS);
  await Promise.all(exited);
  clearTimeout(late);
  done();
}

function stopped(): never {
  console.log("[discord] all shards stopped");
  process.exit(0);
}
process.once("SIGINT", () => void shutdown());
process.once("SIGTERM", () => void shutdown());
try {
  await manager.spawn();
} catch (err) {
  // A shard that died before it was ready has printed its own reason; discord.js's error names only the shard.
  await shutdown(() => failStartup("discord", `a shard stopped before it was ready (${err instanceof Error ? err.message : String(err)})`));
}
