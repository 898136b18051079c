import { execFile, spawn, type ChildProcess } from "node:child_process";
import { existsSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startFakeModel, type FakeModel } from "./fakes/model.ts";
import { cleanEnv, descendants, inspectorsAnswering, listeningPorts, processes, stillRunning, tempHome, watchOutput, type WatchedOutput } from "./helpers/dev-processes.ts";
import { quietPort } from "./helpers/ports.ts";
import { REPO_ROOT } from "./helpers/worker.ts";

/**
 * `pnpm dev` and the `duet` CLI as a developer uses them: real child processes,
 * on free ports, with a temporary DUET_HOME so your own .duet/ is never touched.
 */

const TSX = join(REPO_ROOT, "node_modules", ".bin", "tsx");

interface DevRun extends WatchedOutput {
  child: ChildProcess;
}

function startDev(env: NodeJS.ProcessEnv, args: string[] = []): DevRun {
  const child = spawn(TSX, ["scripts/dev.ts", ...args], { cwd: REPO_ROOT, env, stdio: ["ignore", "pipe", "pipe"] });
  return { child, ...watchOutput(child, "pnpm dev") };
}

function cli(args: string[], env: NodeJS.ProcessEnv, stdin?: string): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = execFile(TSX, ["scripts/duet-cli.ts", ...args], { cwd: REPO_ROOT, env, timeout: 60_000 }, (err, stdout, stderr) => {
      resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr });
    });
    child.stdin!.end(stdin ?? "");
  });
}

describe("pnpm dev + duet CLI", () => {
  let model: FakeModel;
  let home: string;
  let workerPort: number;
  let dev: DevRun;
  let cliEnv: NodeJS.ProcessEnv;

  beforeAll(async () => {
    model = await startFakeModel();
    home = tempHome();
    workerPort = await quietPort();
    const sandboxPort = await quietPort();
    dev = startDev(
      cleanEnv({
        DUET_HOME: home,
        DUET_WORKER_PORT: String(workerPort),
        SANDBOX_PORT: String(sandboxPort),
        MODEL_PROVIDER: "openai",
        MODEL: "fake-model",
        OPENAI_BASE_URL: model.baseUrl,
      }),
    );
    await dev.waitFor(/\[dev\] ready/);
    // No DUET_API_TOKEN: the CLI must find the one pnpm dev created in DUET_HOME.
    cliEnv = cleanEnv({ DUET_HOME: home, DUET_WORKER_URL: `http://127.0.0.1:${workerPort}` });
  }, 180_000);

  afterAll(async () => {
    if (dev && dev.child.exitCode === null) {
      // What it started goes too (the Worker runs in a process group of its own), so a stop that failed leaves nothing running.
      const started = descendants(await processes(), dev.child.pid!);
      dev.child.kill("SIGKILL");
      for (const p of started) {
        try {
          process.kill(p.pid, "SIGKILL");
        } catch {
          // Already gone.
        }
      }
      await dev.exited;
    }
    await model?.close();
    if (home) rmSync(home, { recursive: true, force: true });
  });

  it("prints what runs where, creates the tokens, and names the model", () => {
    const out = dev.output();
    expect(out).toContain(`Worker   http://127.0.0.1:${workerPort}`);
    expect(out).toMatch(/sandbox  http:\/\/127\.0\.0\.1:\d+ +\(isolation: bwrap/);
    expect(out).toContain("Slack    not started: SLACK_BOT_TOKEN is not set");
    expect(out).toContain("Discord  not started: DISCORD_TOKEN is not set");
    expect(out).toContain(`model    fake-model at ${model.baseUrl} (OpenAI-compatible)`);
    // The fake model answers, so there is nothing to warn about.
    expect(out).not.toContain("warning");
    expect(readFileSync(join(home, "tokens.env"), "utf8")).toMatch(/^DUET_API_TOKEN=[0-9a-f]{48}\nSANDBOX_TOKEN=[0-9a-f]{48}\n$/);
  });

  it("duet run prints the command's output; a failing command exits 1", async () => {
    const ok = await cli(["run", "devroom", "echo hi"], cliEnv);
    expect(ok).toMatchObject({ code: 0, stderr: "" });
    expect(ok.stdout).toMatch(/^\$ echo hi\n {2}exit 0 · \d+ ms\n {2}│ hi\n$/);
    const failed = await cli(["run", "devroom", "ls", "/missing"], cliEnv);
    expect(failed.code).toBe(1);
    expect(failed.stdout).toContain("exit 2");
    expect(failed.stdout).toContain("No such file or directory");
  });

  it("duet ask shows the explanation and the command the model ran; history shows the turn", async () => {
    const ask = await cli(["ask", "devroom", "SAY: ok <run>echo from-ask</run>"], cliEnv);
    expect(ask).toMatchObject({ code: 0, stderr: "" });
    // Live (the default): the text as written, then the command as it starts and how it ended.
    expect(ask.stdout).toMatch(/^ok\n\$ echo from-ask running…\n {2}exit 0 · \d+ ms\n {2}│ from-ask\n$/);

    const history = await cli(["history", "devroom"], cliEnv);
    expect(history.code).toBe(0);
    expect(history.stdout).toMatch(/ cli:[^:]+: SAY: ok <run>echo from-ask<\/run>\n/);
    expect(history.stdout).toMatch(/ duet: ok\n/);
  });

  it("duet chat answers each line: !runs, questions and /history", async () => {
    const chat = await cli(["chat", "chatroom"], cliEnv, "!echo chat-run\nSAY: chatting <run>echo chat-ask</run>\n/bogus\n/history\n/quit\n!echo never\n");
    expect(chat.code).toBe(0);
    expect(chat.stdout).toContain("$ echo chat-run\n  exit 0");
    expect(chat.stdout).toContain("chatting\n$ echo chat-ask running…\n  exit 0");
    expect(chat.stdout).toMatch(/ duet: chatting\n/);
    expect(chat.stdout).not.toContain("never");
    expect(chat.stderr).toContain("unknown chat command /bogus");
  });

  it("duet reset empties the room; errors are one line with exit 1, usage errors exit 2", async () => {
    const reset = await cli(["reset", "devroom"], cliEnv);
    expect(reset.code).toBe(0);
    expect(reset.stdout).toMatch(/^Room devroom: \S+ reset Duet here: the conversation history is cleared and the sandbox is removed\.\n$/);
    expect((await cli(["history", "devroom"], cliEnv)).stdout).toBe("(no messages in devroom yet)\n");

    const badToken = await cli(["history", "devroom"], { ...cliEnv, DUET_API_TOKEN: "wrong-token" });
    expect(badToken.code).toBe(1);
    expect(badToken.stderr.trim().split("\n")).toHaveLength(1);
    expect(badToken.stderr).toContain("DUET_API_TOKEN");

    const usage = await cli(["run", "bad room", "ls"], cliEnv);
    expect(usage.code).toBe(2);
    expect(usage.stderr).toContain("not a valid room");
    expect(usage.stderr).toContain("Run `duet --help` for the commands.");
  });

  it("leaves no inspector listening: no local user can attach to the Worker and read its secrets", async () => {
    const stack = [dev.child.pid!, ...descendants(await processes(), dev.child.pid!).map((p) => p.pid)];
    // The probe must see the stack's listeners, or an empty answer would prove nothing.
    expect(listeningPorts(stack).map((l) => l.port)).toContain(workerPort);
    expect(await inspectorsAnswering(stack)).toEqual([]);
  }, 60_000);

  it("stops everything it started on SIGINT", async () => {
    const started = descendants(await processes(), dev.child.pid!);
    expect(started.some((p) => /workerd/.test(p.args))).toBe(true);
    expect(started.some((p) => /scripts\/dev-worker\.ts/.test(p.args))).toBe(true);

    dev.child.kill("SIGINT");
    expect(await dev.exited).toBe(0);
    expect(dev.output()).toContain("[dev] stopped");
    expect(await stillRunning(started.map((p) => p.pid), home)).toEqual([]);
  }, 60_000);
});

describe("pnpm dev when something is wrong", () => {
  it("shows the executor's one line and exits 1 when bubblewrap is missing", async () => {
    const home = tempHome();
    try {
      const dev = startDev(cleanEnv({ DUET_HOME: home, DUET_WORKER_PORT: String(await quietPort()), SANDBOX_PORT: "0", SANDBOX_BWRAP: "/nonexistent/bwrap" }));
      expect(await dev.exited).toBe(1);
      expect(dev.output().trim()).toBe(
        "bubblewrap is not installed (no executable /nonexistent/bwrap): install the Debian package `bubblewrap` (apt-get install bubblewrap), or set SANDBOX_ISOLATION=none to run commands without isolation",
      );
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  });

  it("stops everything, naming the child, when a bot dies", async () => {
    const home = tempHome();
    try {
      // A malformed application id makes the Discord bot stop at start-up, after the Worker is up.
      const dev = startDev(
        cleanEnv({ DUET_HOME: home, DUET_WORKER_PORT: String(await quietPort()), SANDBOX_PORT: "0", DISCORD_TOKEN: "x", DISCORD_APPLICATION_ID: "not-an-id" }),
      );
      expect(await dev.exited).toBe(1);
      expect(dev.output()).toContain("Discord  started (pid");
      expect(dev.output()).toContain("[dev] discord exited unexpectedly (exit code 1); stopping everything");
      expect(dev.output()).toContain("[discord] could not start: DISCORD_APPLICATION_ID must be a Discord id");
      expect(await stillRunning([], home)).toEqual([]);
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  }, 180_000);

  it("warns in the summary, naming the URL, when the model cannot be reached, and still starts", async () => {
    const home = tempHome();
    const unreachable = `http://127.0.0.1:${await quietPort()}/v1`;
    try {
      const dev = startDev(
        cleanEnv({ DUET_HOME: home, DUET_WORKER_PORT: String(await quietPort()), SANDBOX_PORT: "0", MODEL_PROVIDER: "openai", OPENAI_BASE_URL: unreachable, OPENAI_API_KEY: "sk-not-shown" }),
      );
      await dev.waitFor(/\[dev\] ready/);
      const warnings = dev.output().split("\n").filter((l) => l.includes("warning"));
      expect(warnings).toEqual([`  warning  the model at ${unreachable} cannot be reached (ECONNREFUSED): is it running, and is OPENAI_BASE_URL right? (asks fail until it answers)`]);
      expect(dev.output()).not.toContain("sk-not-shown");
      dev.child.kill("SIGINT");
      expect(await dev.exited).toBe(0);
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  }, 180_000);

  it("prints its usage and exits 0 on --help, and refuses an unknown argument in one line, before anything starts", async () => {
    const home = join(tmpdir(), "duet-never-created-help");
    const help = spawn(TSX, ["scripts/dev.ts", "--", "--help"], { cwd: REPO_ROOT, env: cleanEnv({ DUET_HOME: home }), stdio: ["ignore", "pipe", "pipe"] });
    let text = "";
    help.stdout!.on("data", (d: Buffer) => (text += d));
    help.stderr!.on("data", (d: Buffer) => (text += d));
    expect(await new Promise((resolve) => help.once("exit", resolve))).toBe(0);
    expect(text).toMatch(/^Usage: npm run dev \[-- OPTIONS\]\n/);
    expect(text).toContain("--port PORT");
    const bad = startDev(cleanEnv({ DUET_HOME: home, DUET_WORKER_PORT: String(await quietPort()) }), ["--bogus"]);
    expect(await bad.exited).toBe(1);
    expect(bad.output().trim()).toBe("pnpm dev: unknown argument --bogus (accepted: --ip ADDRESS, --port PORT, --persist-to DIR, --var NAME:VALUE)");
    expect(existsSync(home)).toBe(false);
  });

  it("refuses a malformed port with one line", async () => {
    const dev = startDev(cleanEnv({ DUET_HOME: join(tmpdir(), "duet-never-created"), DUET_WORKER_PORT: "eighty" }));
    expect(await dev.exited).toBe(1);
    expect(dev.output().trim()).toBe("pnpm dev: DUET_WORKER_PORT must be a port number from 1 to 65535");
    expect(existsSync(join(tmpdir(), "duet-never-created"))).toBe(false);
  });

  it("refuses a daily budget that is not a number with one line naming it, before anything starts", async () => {
    const home = join(tmpdir(), "duet-never-created-budget");
    const dev = startDev(cleanEnv({ DUET_HOME: home, DUET_ROOM_DAILY_TOKENS: "lots" }));
    expect(await dev.exited).toBe(1);
    expect(dev.output().trim()).toBe("pnpm dev: DUET_ROOM_DAILY_TOKENS must be an integer from 1 to 1000000000000");
    expect(existsSync(home)).toBe(false);
  });
});
