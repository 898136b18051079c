import { spawn, type ChildProcess } from "node:child_process";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { snowflake, startFakeDiscord, type FakeDiscord } from "../fakes/discord/index.ts";
import { listen, readBody, sendJson, type Listening } from "../fakes/http.ts";

/**
 * The bot and the register script as the processes `pnpm dev:discord` and
 * `pnpm --filter @duet/discord register` start, against the fake Discord.
 */

const SRC = fileURLToPath(new URL("../../bots/discord/src/", import.meta.url));
/** A port nothing listens on: the Worker is "down" for the start-up tests. */
const DEAD_WORKER = "http://127.0.0.1:9";

interface FakeWorker extends Listening {
  /** Resolves when a command reaches /sandbox/exec. */
  execStarted: Promise<void>;
  /** Lets the held command answer. */
  release(): void;
}

/**
 * A stand-in Worker: /sandbox/exec waits until the test releases it (so a SIGTERM lands
 * mid-answer with no race), an ask's connection is closed with no answer when `dropAsks`
 * (as by a Worker that dies mid-request: the bot tries again, then tells the person), and
 * anything else is an immediate 404, so the bot's other calls (help's settings, telling the
 * room an answer was posted) end at once instead of being tried again for seconds.
 */
async function fakeWorker(dropAsks = false): Promise<FakeWorker> {
  let started!: () => void;
  const execStarted = new Promise<void>((r) => (started = r));
  let release!: () => void;
  const released = new Promise<void>((r) => (release = r));
  const server = await listen(async (req, res) => {
    const path = req.url ?? "";
    if (dropAsks && req.method === "POST" && path.endsWith("/message")) return void req.socket.destroy();
    if (!(req.method === "POST" && path.endsWith("/sandbox/exec"))) return sendJson(res, 404, { error: "not found", code: "not_found" });
    const body = JSON.parse(await readBody(req)) as { cmd: string };
    started();
    await released;
    sendJson(res, 200, { result: { stdout: `ran ${body.cmd}\n`, stderr: "", exitCode: 0, success: true, truncated: false, durationMs: 5 }, sandboxName: "sandbox-x" });
  });
  return { ...server, execStarted, release };
}

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
    const worker = await fakeWorker(true);
    const p = run("main.ts", { ...env(), DUET_WORKER_URL: worker.url });
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
    await worker.close();
  });

  it("on SIGTERM, an answer in progress is finished before the process exits", async () => {
    const worker = await fakeWorker();
    const p = run("main.ts", { ...env(), DUET_WORKER_URL: worker.url });
    try {
      await p.waitForOutput("connected as Duet");
      const rec = fake.interaction(fake.addChannel(guildId, "graceful"), { subcommand: "run", options: { command: "echo graceful" } });
      await worker.execStarted;
      p.child.kill("SIGTERM");
      // The bot took the signal with the answer still open, and is waiting for it.
      await p.waitForOutput("stopping: waiting up to 8 s for 1 answer(s) in progress");
      expect(p.child.exitCode).toBeNull();
      worker.release();
      expect(await p.exited).toBe(0);
      expect(rec.original?.content).toContain("ran echo graceful");
    } finally {
      worker.release();
      p.child.kill("SIGKILL");
      await worker.close();
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

  // One sharded start for both: what each shard answers, then how the manager stops mid-answer.
  describe("shards", () => {
    let sharded: FakeDiscord;
    let worker: FakeWorker;
    let guilds: string[];
    let p: Proc;
    beforeAll(async () => {
      sharded = await startFakeDiscord({ heartbeatIntervalMs: 1_000, shardCount: 2 });
      // A guild's shard is (id >> 22) % count: consecutive timestamps land on different shards.
      const at = Date.now();
      guilds = [sharded.addGuild("even", snowflake(at - (at % 2))), sharded.addGuild("odd", snowflake(at - (at % 2) + 1))];
      worker = await fakeWorker();
      p = run("shards.ts", { DISCORD_TOKEN: sharded.token, DISCORD_API_URL: sharded.api, DUET_WORKER_URL: worker.url, DUET_API_TOKEN: "t0ken-for-tests" });
    });
    afterAll(async () => {
      // SIGTERM, not SIGKILL: the manager takes its shards down with it.
      worker?.release();
      p?.child.kill("SIGTERM");
      await p?.exited;
      await worker?.close();
      await sharded?.close();
    });

    it("two processes, each answering the guilds of its shard", async () => {
      await p.waitForOutput("connected as Duet in 1 server(s)", 60_000);
      await expect.poll(() => (p.out().match(/connected as Duet in 1 server\(s\)/g) ?? []).length, { timeout: 60_000 }).toBe(2);
      expect(sharded.gateway.received.filter((r) => r.op === 2).map((r) => (r.d as { shard: number[] }).shard)).toEqual([[0, 2], [1, 2]]);
      for (const g of guilds) {
        const help = sharded.interaction(sharded.addChannel(g, "sharded"), { subcommand: "help" });
        await sharded.waitForCall((c) => c.path.includes(help.token) && c.method === "PATCH" && c.status === 200);
        expect(help.original?.content).toContain("/duet ask prompt:");
      }
    }, 120_000);

    it("on SIGTERM the manager waits for each shard to finish its answer, then exits", async () => {
      await expect.poll(() => (p.out().match(/connected as Duet in \d server\(s\)/g) ?? []).length, { timeout: 60_000 }).toBe(2);
      // The Worker holds the command until the test lets it go: SIGTERM lands mid-answer, with no race.
      const rec = sharded.interaction(sharded.addChannel(guilds[0]!, "drain"), { subcommand: "run", options: { command: "echo drained" } });
      await worker.execStarted;
      p.child.kill("SIGTERM");
      // Both shards were told to stop; the manager is still there, waiting for the one that answers.
      await expect.poll(() => sharded.gateway.closed.length, { timeout: 20_000 }).toBeGreaterThanOrEqual(1);
      expect(p.child.exitCode).toBeNull();
      worker.release();
      await sharded.waitForCall((c) => c.path.includes(rec.token) && c.method === "PATCH" && Boolean(rec.original?.content?.includes("ran echo drained")));
      // The answer went out while the manager still waited for its shard.
      expect(p.child.exitCode).toBeNull();
      expect(await p.exited).toBe(0);
      expect(rec.original?.content).toContain("ran echo drained");
      expect(p.out()).toContain("all shards stopped");
    }, 120_000);
  });
});
