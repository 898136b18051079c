import { spawn, type ChildProcess } from "node:child_process";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { snowflake, startFakeDiscord, type FakeDiscord } from "../fakes/discord/index.ts";
import { modelCallsFor } from "../helpers/assertions.ts";
import { startStack, type Stack } from "../helpers/stack.ts";

/**
 * Discord shards as docker-compose.yml runs them: one bot process per shard,
 * each started with discord.js's own SHARDS and SHARD_COUNT (no sharding
 * manager, so the processes may sit on different machines), against the fake
 * gateway and the real Worker. Each process serves only its guilds, and a
 * mention is answered once, by the process whose shard the guild is on.
 */

const MAIN = fileURLToPath(new URL("../../bots/discord/src/main.ts", import.meta.url));

let stack: Stack;
let fake: FakeDiscord;
const shards: { child: ChildProcess; out: () => string }[] = [];

function startShard(id: number): { child: ChildProcess; out: () => string } {
  const child = spawn(process.execPath, ["--import", "tsx", MAIN], {
    env: {
      PATH: process.env.PATH ?? "",
      HOME: process.env.HOME ?? "/tmp",
      DISCORD_TOKEN: fake.token,
      DISCORD_API_URL: fake.api,
      DUET_WORKER_URL: stack.workerUrl,
      DUET_API_TOKEN: stack.token,
      SHARDS: String(id),
      SHARD_COUNT: "2",
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  child.stdout!.on("data", (d) => (out += d));
  child.stderr!.on("data", (d) => (out += d));
  return { child, out: () => out };
}

beforeAll(async () => {
  stack = await startStack();
  fake = await startFakeDiscord({ heartbeatIntervalMs: 1_000, shardCount: 2 });
}, 60_000);

afterAll(async () => {
  for (const s of shards) {
    if (s.child.exitCode === null) {
      const exited = new Promise((r) => s.child.once("exit", r));
      s.child.kill("SIGTERM");
      await exited;
    }
  }
  await fake?.close();
  await stack?.stop();
});

describe("Discord shards in processes of their own", () => {
  it("two processes (SHARDS=0 and 1 of 2) each serve their own guild, and each mention is answered once", async () => {
    // A guild's shard is (id >> 22) % 2: consecutive timestamps land on different shards.
    const at = Date.now();
    const guilds = [fake.addGuild("shard-zero", snowflake(at - (at % 2))), fake.addGuild("shard-one", snowflake(at - (at % 2) + 1))];
    shards.push(startShard(0), startShard(1));
    await expect.poll(() => shards.map((s) => /connected as Duet in 1 server\(s\)/.test(s.out())), { timeout: 60_000, interval: 100 }).toEqual([true, true]);
    expect(fake.gateway.received.filter((r) => r.op === 2).map((r) => (r.d as { shard: number[] }).shard).sort()).toEqual([[0, 2], [1, 2]]);

    const asked = guilds.map((g, i) => {
      const channel = fake.addChannel(g, `sharded-${i}`);
      return { channel, msg: fake.message(channel, `SAY: answered-on-shard-${i}-${at}`, { mention: true }) };
    });
    const answersIn = (channel: string, marker: string) => fake.messagesIn(channel).filter((m) => m.author.id === fake.botUser.id && m.content.includes(marker));
    for (const [i, { channel, msg }] of asked.entries()) {
      await expect.poll(() => answersIn(channel, `answered-on-shard-${i}`).length, { timeout: 30_000, interval: 100 }).toBeGreaterThan(0);
      expect((answersIn(channel, `answered-on-shard-${i}`)[0].message_reference as { message_id?: string } | undefined)?.message_id).toBe(msg.id);
    }
    // Barrier: a later mention in the first guild is answered after anything the first two could still post.
    fake.message(asked[0].channel, `SAY: later-${at}`, { mention: true });
    await expect.poll(() => answersIn(asked[0].channel, `later-${at}`).length, { timeout: 30_000, interval: 100 }).toBe(1);
    for (const [i, { channel }] of asked.entries()) {
      expect(answersIn(channel, `answered-on-shard-${i}`)).toHaveLength(1);
      expect(modelCallsFor(stack, `answered-on-shard-${i}-${at}`)).toBe(1);
    }
  }, 120_000);
});
