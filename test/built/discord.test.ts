import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { snowflake, startFakeDiscord, type FakeDiscord } from "../fakes/discord/index.ts";
import { startStack, type Stack } from "../helpers/stack.ts";
import { buildBots, type Built, healthBecomes, portFrom, runBuilt } from "./harness.ts";

/**
 * The built Discord bot (`pnpm build`, plain node, no node_modules) against the
 * fake Discord and the real Worker: it connects, answers `/duet ask`, and its
 * /healthz follows the gateway; a Worker token the Worker refuses stops start-up.
 */

let built: Built;
let stack: Stack;
let fake: FakeDiscord;
let guildId: string;

beforeAll(async () => {
  built = await buildBots();
  stack = await startStack();
  fake = await startFakeDiscord({ heartbeatIntervalMs: 1_000 });
  guildId = fake.addGuild("built");
});
afterAll(async () => {
  await fake?.close();
  await stack?.stop();
  built?.remove();
});

const env = (extra: Record<string, string> = {}) => ({
  DISCORD_TOKEN: fake.token,
  DISCORD_API_URL: fake.api,
  DUET_WORKER_URL: stack.workerUrl,
  DUET_API_TOKEN: stack.token,
  HEALTH_PORT: "0",
  ...extra,
});

describe("the built Discord bot", () => {
  it("connects, answers /duet ask, and answers /healthz 503 with the reason while the gateway is down", async () => {
    const bot = runBuilt(built, "discord", env());
    try {
      const port = await portFrom(bot, "/healthz on port");
      await bot.waitForOutput("connected as Duet in 1 server(s)");
      expect(await healthBecomes(port, 200)).toEqual({ ok: true });

      const ask = fake.interaction(fake.addChannel(guildId, "built"), { subcommand: "ask", options: { prompt: "SAY: answered by the built bot" } });
      // The reply grows as the answer streams; its last edit holds the whole answer.
      await fake.waitForCall(() => ask.original?.content?.includes("answered by the built bot") === true);
      expect(ask.original?.content).toContain("answered by the built bot");

      // A gateway outage: the connection drops and new ones are refused.
      fake.gateway.refusing = true;
      fake.dropConnections("terminate");
      const down = await healthBecomes(port, 503);
      expect(down.ok).toBe(false);
      expect(down.reason).toMatch(/gateway: shard 0 /);

      fake.gateway.refusing = false;
      expect(await healthBecomes(port, 200, 60_000)).toEqual({ ok: true });
    } finally {
      fake.gateway.refusing = false;
      expect(await bot.stop()).toBe(0);
    }
  }, 120_000);

  it("under ShardingManager, serves one /healthz that is 200 once every shard is ready", async () => {
    const sharded = await startFakeDiscord({ heartbeatIntervalMs: 1_000, shardCount: 2 });
    // A guild's shard is (id >> 22) % count: consecutive timestamps land on different shards.
    const at = Date.now();
    for (const [i, name] of ["even", "odd"].entries()) sharded.addGuild(name, snowflake(at - (at % 2) + i));
    const manager = runBuilt(built, "discord-sharded", { ...env(), DISCORD_TOKEN: sharded.token, DISCORD_API_URL: sharded.api });
    try {
      const port = await portFrom(manager, "/healthz on port");
      expect(await healthBecomes(port, 200, 60_000)).toEqual({ ok: true });
      await expect.poll(() => manager.output().match(/connected as Duet in 1 server\(s\)/g)?.length).toBe(2);
    } finally {
      await manager.stop();
      await sharded.close();
    }
  }, 120_000);

  it("discord-register registers /duet and \"Ask Duet\" with Discord, and without a token exits 1 in one line", async () => {
    const register = runBuilt(built, "discord-register", { DISCORD_TOKEN: fake.token, DISCORD_API_URL: fake.api, DISCORD_APPLICATION_ID: fake.applicationId, DISCORD_GUILD_ID: guildId });
    expect(await register.exited).toBe(0);
    expect(register.output()).toContain(`Registered /duet and "Ask Duet" (a message's Apps menu) for application ${fake.applicationId} in server ${guildId}`);
    expect((fake.commands.guild.get(guildId) as { name: string; type: number }[]).map((c) => [c.name, c.type])).toEqual([["duet", 1], ["Ask Duet", 3]]);

    const tokenless = runBuilt(built, "discord-register", { DISCORD_API_URL: fake.api, DISCORD_APPLICATION_ID: fake.applicationId });
    expect(await tokenless.exited).toBe(1);
    expect(tokenless.output().trim().split("\n")).toEqual([expect.stringMatching(/^\[discord\] could not register commands: .*DISCORD_TOKEN/)]);
  });

  it("discord-sharded with a token Discord refuses fails in one line, as the plain bot does, with no stack trace", async () => {
    // No HEALTH_PORT: the output is the start-up failure alone.
    const { HEALTH_PORT: _none, ...refused } = env({ DISCORD_TOKEN: "not-the-bots-token" });
    const plain = runBuilt(built, "discord", refused);
    const sharded = runBuilt(built, "discord-sharded", refused);
    expect(await plain.exited).toBe(1);
    expect(await sharded.exited).toBe(1);
    const oneLine = [expect.stringMatching(/^\[discord\] could not start: could not connect to Discord: /)];
    expect(plain.output().trim().split("\n")).toEqual(oneLine);
    expect(sharded.output().trim().split("\n")).toEqual(oneLine);
  });

  it("exits non-zero with one line when the Worker refuses DUET_API_TOKEN", async () => {
    const bot = runBuilt(built, "discord", env({ DUET_API_TOKEN: "not-the-workers-token" }));
    expect(await bot.exited).toBe(1);
    expect(bot.output().trim().split("\n")).toEqual([expect.stringMatching(/^\[discord\] could not start: .*refused DUET_API_TOKEN/)]);
    const sharded = runBuilt(built, "discord-sharded", env({ DUET_API_TOKEN: "not-the-workers-token" }));
    expect(await sharded.exited).toBe(1);
    expect(sharded.output().trim().split("\n")).toEqual([expect.stringMatching(/^\[discord\] could not start: .*refused DUET_API_TOKEN/)]);
  });
});
