import type { Health } from "@duet/shared/health";
import { type Client, type ShardingManager, Status } from "discord.js";

/**
 * Whether the Discord bot can take work, for `GET /healthz`: logged in and every
 * shard this process runs READY on the gateway (a shard that is reconnecting
 * or resuming misses its guilds' events meanwhile). The Worker's state is not
 * part of it: a restarted bot would not bring a Worker back.
 */
export function discordHealth(client: Client, stopping: boolean): Health {
  if (stopping) return { ok: false, reason: "stopping: finishing answers in flight" };
  const shards = [...client.ws.shards.values()];
  if (!client.isReady() || shards.length === 0) return { ok: false, reason: "not connected to Discord's gateway yet" };
  const down = shards.filter((s) => s.status !== Status.Ready);
  if (down.length === 0) return { ok: true };
  const states = down.map((s) => `shard ${s.id} ${Status[s.status]?.toLowerCase() ?? s.status}`).join(", ");
  return { ok: false, reason: `not connected to Discord's gateway: ${states}` };
}

/** The sharding manager's view: every shard process spawned and its client ready. */
export function shardsHealth(manager: ShardingManager, totalShards: number, stopping: boolean): Health {
  if (stopping) return { ok: false, reason: "stopping" };
  const down: number[] = [];
  for (let id = 0; id < totalShards; id++) if (!manager.shards.get(id)?.ready) down.push(id);
  if (down.length === 0) return { ok: true };
  return { ok: false, reason: `shard(s) ${down.join(", ")} of ${totalShards} not ready` };
}
