import { spawn, type ChildProcess } from "node:child_process";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { snowflake, startFakeDiscord, type FakeDiscord } from "../fakes/discord/index.ts";
import { listen, readBody, sendJson, sleep } from "../fakes/http.ts";

/**
 * The bot and the register script as the processes `pnpm dev:discord` and
 * `pnpm --filter @duet/discord register` start, against the fake Discord.
 */

const SRC = fileURLToPath(new URL("../../bots/discord/src/", import.meta.url));
/** A port nothing listens on: the Worker is "down" for these tests. */
const DEAD_WORKER = "http://127.0.0.1:9";

interface Proc {
  child: ChildProcess;
  out: () => string;
  err: () => string;
  waitForOutput(text: string, timeoutMs?: number): Promise<void>;
  exited: Promise<number | null>;
}

function run(script: string, env: Record<string, string>): Proc {
  // Only what the scripts need: a developer's own DISCORD_* variables must not leak in.
  const child = spawn(process.execPath, ["--import", "tsx", `${SRC}${script}`], {
    env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "/tmp", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  let err = "";
  child.stdout!.on("data", (d) => (out += d));
  child.stderr!.on("data", (d) => (err += d));
  const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
  return {
    child,
    out: () => out,
    err: () => err,
    exited,
    async waitForOutput(text, timeoutMs = 30_000) {
      await expect.poll(() => out + err, { timeout: timeoutMs, interval: 50 }).toContain(text);
    },
  };
}

describe("the Discord bot's processes", () => {
  let fake: FakeDiscord;
  let guildId: string;
  beforeAll(async () => {
    fake = await startFakeDiscord({ heartbeatIntervalMs: 1_000 });
    guildId = fake.addGuild("process-tests");
  });
  afterAll(async () => {
    await fake?.close();
  });

  const env = () => ({ DISCORD_TOKEN: fake.token, DISCORD_API_URL: fake.api, DUET_WORKER_URL: DEAD_WORKER, DUET_API_TOKEN: "t0ken-for-tests" });

  it.each([
    ["DISCORD_TOKEN", { DISCORD_TOKEN: "" }],
    ["DUET_API_TOKEN", { DUET_API_TOKEN: "" }],
    ["DISCORD_API_URL", { DISCORD_API_URL: "not a url" }],
    ["DISCORD_GUILD_ID", { DISCORD_GUILD_ID: "my-server" }],
  ])("a missing or malformed %s stops start-up with one line naming it", async (name, override) => {
    const p = run("main.ts", { ...env(), ...override });
    expect(await p.exited).toBe(1);
    const lines = p.err().trim().split("\n");
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain(name);
    expect(p.err()).not.toMatch(/\n\s+at /);
  });

  it("connects, answers, survives a broken interaction packet, and stops on SIGTERM", async () => {
    const p = run("main.ts", env());
    try {
      await p.waitForOutput("connected as Duet in 1 server(s)");
      const ch = fake.addChannel(guildId, "process");
      // No member, no user, no channel: discord.js itself throws on this one.
      fake.gateway.dispatch("INTERACTION_CREATE", { id: "1", type: 2, token: "x", application_id: fake.applicationId, version: 1, data: { id: "1", name: "duet", type: 1 } });
      const help = fake.interaction(ch, { subcommand: "help" });
      await fake.waitForCall((c) => c.path.includes(help.token) && c.method === "PATCH" && c.status === 200);
      expect(help.original?.content).toContain("/duet ask prompt:");
      const ask = fake.interaction(ch, { subcommand: "ask", options: { prompt: "hello" } });
      await fake.waitForCall((c) => c.path.includes(ask.token) && c.method === "PATCH" && c.status === 200);
      expect(ask.original?.content).toContain("can't be reached right now");
      expect(p.child.exitCode).toBeNull();
    } finally {
      p.child.kill("SIGTERM");
    }
    expect(await p.exited).toBe(0);
  });

  it("on SIGTERM, an answer in progress is finished before the process exits", async () => {
    // A Worker that takes a moment over /sandbox/exec, so SIGTERM lands mid-answer.
    let started!: () => void;
    const execStarted = new Promise<void>((r) => (started = r));
    const slowWorker = await listen(async (req, res) => {
      const body = JSON.parse(await readBody(req)) as { cmd: string };
      started();
      await sleep(1_500);
      sendJson(res, 200, { result: { stdout: `ran ${body.cmd}\n`, stderr: "", exitCode: 0, success: true, truncated: false, durationMs: 1500 }, sandboxName: "sandbox-x" });
    });
    const p = run("main.ts", { ...env(), DUET_WORKER_URL: slowWorker.url });
    try {
      await p.waitForOutput("connected as Duet");
      const rec = fake.interaction(fake.addChannel(guildId, "graceful"), { subcommand: "run", options: { command: "echo graceful" } });
      await execStarted;
      p.child.kill("SIGTERM");
      expect(await p.exited).toBe(0);
      expect(rec.original?.content).toContain("ran echo graceful");
    } finally {
      p.child.kill("SIGKILL");
      await slowWorker.close();
    }
  });

  it("register puts /duet and the \"Ask Duet\" message command in one server when DISCORD_GUILD_ID is set", async () => {
    const p = run("register-main.ts", { DISCORD_TOKEN: fake.token, DISCORD_API_URL: fake.api, DISCORD_APPLICATION_ID: fake.applicationId, DISCORD_GUILD_ID: guildId });
    expect(await p.exited).toBe(0);
    expect(p.out()).toContain(`Registered /duet and "Ask Duet" (a message's Apps menu) for application ${fake.applicationId} in server ${guildId}`);
    const [cmd, askDuet] = fake.commands.guild.get(guildId) as { name: string; type: number; description: string; options: { name: string; options?: { name: string; required?: boolean }[] }[] }[];
    // A message command (type 3): a name people see in a message's Apps menu, no description, servers only.
    expect(askDuet).toMatchObject({ name: "Ask Duet", type: 3, description: "", contexts: [0] });
    expect(cmd.name).toBe("duet");
    expect(cmd.options.map((o) => o.name)).toEqual(["ask", "get", "run", "history", "stop", "reset", "policy", "model", "repo", "pr", "tools", "usage", "audit", "schedule", "schedules", "unschedule", "remember", "memory", "forget", "help"]);
    expect(cmd.options[0].options).toEqual([expect.objectContaining({ name: "prompt", required: true }), expect.objectContaining({ name: "file", required: false })]);
    expect(cmd.options[2].options).toEqual([expect.objectContaining({ name: "command", required: true })]);
  });

  it("register without a guild registers globally, asking Discord for the application id", async () => {
    const p = run("register-main.ts", { DISCORD_TOKEN: fake.token, DISCORD_API_URL: fake.api });
    expect(await p.exited).toBe(0);
    expect(p.out()).toContain(`Registered /duet and "Ask Duet" (a message's Apps menu) for application ${fake.applicationId} globally`);
    expect((fake.commands.global as { name: string; type: number }[]).map((c) => [c.name, c.type])).toEqual([["duet", 1], ["Ask Duet", 3]]);
    expect(fake.calls.some((c) => c.route === "GET /applications/@me")).toBe(true);
  });

  it("register with a wrong token fails with one line", async () => {
    const p = run("register-main.ts", { DISCORD_TOKEN: "wrong-token", DISCORD_API_URL: fake.api, DISCORD_APPLICATION_ID: fake.applicationId });
    expect(await p.exited).toBe(1);
    expect(p.err().trim().split("\n")).toEqual([expect.stringContaining("could not register commands")]);
  });

  it("shards: two processes, each answering the guilds of its shard", async () => {
    const sharded = await startFakeDiscord({ heartbeatIntervalMs: 1_000, shardCount: 2 });
    // A guild's shard is (id >> 22) % count: consecutive timestamps land on different shards.
    const at = Date.now();
    const guilds = [sharded.addGuild("even", snowflake(at - (at % 2))), sharded.addGuild("odd", snowflake(at - (at % 2) + 1))];
    const p = run("shards.ts", { DISCORD_TOKEN: sharded.token, DISCORD_API_URL: sharded.api, DUET_WORKER_URL: DEAD_WORKER, DUET_API_TOKEN: "t0ken-for-tests" });
    try {
      await p.waitForOutput("connected as Duet in 1 server(s)", 60_000);
      await expect.poll(() => (p.out().match(/connected as Duet in 1 server\(s\)/g) ?? []).length, { timeout: 60_000 }).toBe(2);
      expect(sharded.gateway.received.filter((r) => r.op === 2).map((r) => (r.d as { shard: number[] }).shard)).toEqual([[0, 2], [1, 2]]);
      for (const g of guilds) {
        const help = sharded.interaction(sharded.addChannel(g, "sharded"), { subcommand: "help" });
        await sharded.waitForCall((c) => c.path.includes(help.token) && c.method === "PATCH" && c.status === 200);
        expect(help.original?.content).toContain("/duet ask prompt:");
      }
    } finally {
      p.child.kill("SIGTERM");
      await p.exited;
      await sharded.close();
    }
  }, 120_000);

  it("shards: on SIGTERM the manager waits for each shard to finish its answer, then exits", async () => {
    const sharded = await startFakeDiscord({ heartbeatIntervalMs: 1_000, shardCount: 2 });
    const guild = sharded.addGuild("draining");
    let started!: () => void;
    const execStarted = new Promise<void>((r) => (started = r));
    let release!: () => void;
    const released = new Promise<void>((r) => (release = r));
    // The Worker holds the command until the test lets it go: SIGTERM lands mid-answer, with no race.
    const heldWorker = await listen(async (req, res) => {
      const body = JSON.parse(await readBody(req)) as { cmd: string };
      started();
      await released;
      sendJson(res, 200, { result: { stdout: `ran ${body.cmd}\n`, stderr: "", exitCode: 0, success: true, truncated: false, durationMs: 5 }, sandboxName: "sandbox-x" });
    });
    const p = run("shards.ts", { DISCORD_TOKEN: sharded.token, DISCORD_API_URL: sharded.api, DUET_WORKER_URL: heldWorker.url, DUET_API_TOKEN: "t0ken-for-tests" });
    try {
      await expect.poll(() => (p.out().match(/connected as Duet in \d server\(s\)/g) ?? []).length, { timeout: 60_000 }).toBe(2);
      const rec = sharded.interaction(sharded.addChannel(guild, "drain"), { subcommand: "run", options: { command: "echo drained" } });
      await execStarted;
      p.child.kill("SIGTERM");
      // Both shards were told to stop; the manager is still there, waiting for the one that answers.
      await expect.poll(() => sharded.gateway.closed.length, { timeout: 20_000 }).toBeGreaterThanOrEqual(1);
      expect(p.child.exitCode).toBeNull();
      release();
      expect(await p.exited).toBe(0);
      expect(rec.original?.content).toContain("ran echo drained");
      expect(p.out()).toContain("all shards stopped");
    } finally {
      release();
      p.child.kill("SIGKILL");
      await heldWorker.close();
      await sharded.close();
    }
  }, 120_000);
});
