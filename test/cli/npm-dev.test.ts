import { execFile, spawn, type ChildProcess } from "node:child_process";
import { existsSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { connect } from "node:net";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startFakeModel, type FakeModel } from "../fakes/model.ts";
import { cleanEnv, descendants, processes, stillRunning, tempHome, type Proc } from "../helpers/dev-processes.ts";
import { quietPort } from "../helpers/ports.ts";
import { REPO_ROOT } from "../helpers/worker.ts";

/**
 * `npm run dev` as a newcomer with npm alone, and as a service manager or a script
 * runs it: started as its own process group with no pnpm on the PATH, the
 * README's commands run through `npm run -s duet -- …`, no secret shows in any
 * process's command line, and a SIGTERM to npm (or its launcher dying) stops
 * every process it started and closes its ports.
 */

/** The PATH without any directory that holds a pnpm, so only npm can run the commands. */
const NPM_ONLY_PATH = (process.env.PATH ?? "/usr/bin:/bin")
  .split(":")
  .filter((dir) => dir && !existsSync(join(dir, "pnpm")))
  .join(":");

/** A model key the Worker gets from the environment: it must never appear in a command line. */
const MODEL_KEY = "sk-npm-dev-secret-key-0123456789";

interface Dev {
  child: ChildProcess;
  home: string;
  ports: number[];
  output(): string;
  exited: Promise<number | null>;
}

/** `launcher` (argv) started in a process group of its own, as a service manager starts a unit. */
async function startDev(model: FakeModel, launcher: (env: NodeJS.ProcessEnv) => [string, string[]]): Promise<Dev> {
  const home = tempHome();
  const ports = [await quietPort(), await quietPort()];
  const env = cleanEnv({
    PATH: NPM_ONLY_PATH,
    DUET_HOME: home,
    DUET_WORKER_PORT: String(ports[0]),
    SANDBOX_PORT: String(ports[1]),
    MODEL_PROVIDER: "openai",
    MODEL: "fake-model",
    OPENAI_BASE_URL: model.baseUrl,
    OPENAI_API_KEY: MODEL_KEY,
  });
  const [cmd, args] = launcher(env);
  const child = spawn(cmd, args, { cwd: REPO_ROOT, env, detached: true, stdio: ["ignore", "pipe", "pipe"] });
  let text = "";
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  await new Promise<void>((resolve, reject) => {
    const onData = (d: Buffer) => {
      text += d;
      if (text.includes("[dev] ready")) resolve();
    };
    child.stdout!.on("data", onData);
    child.stderr!.on("data", onData);
    void exited.then((code) => reject(new Error(`npm run dev exited (${code}) before it was ready:\n${text}`)));
  });
  return { child, home, ports, output: () => text, exited };
}

/** Whatever is left of `dev`: its process group and its home are removed. */
async function cleanUp(dev: Dev | undefined): Promise<void> {
  if (!dev) return;
  try {
    process.kill(-dev.child.pid!, "SIGKILL");
  } catch {
    // already gone
  }
  for (const p of await stillRunning([], dev.home)) process.kill(p.pid, "SIGKILL");
  rmSync(dev.home, { recursive: true, force: true });
}

const portOpen = (port: number) =>
  new Promise<boolean>((resolve) => {
    const socket = connect(port, "127.0.0.1");
    socket.once("connect", () => (socket.destroy(), resolve(true)));
    socket.once("error", () => resolve(false));
  });

/** Everything `dev` runs stops, and its ports close, within 10 s. */
async function expectAllStopped(dev: Dev, started: Proc[]): Promise<void> {
  await expect.poll(async () => (await stillRunning(started.map((p) => p.pid), dev.home)).map((p) => p.args), { timeout: 10_000, interval: 200 }).toEqual([]);
  for (const port of dev.ports) expect(await portOpen(port)).toBe(false);
}

type Ran = { code: number; stdout: string; stderr: string };

function run(file: string, args: string[], env: NodeJS.ProcessEnv): Promise<Ran> {
  return new Promise((resolve) => {
    execFile(file, args, { cwd: REPO_ROOT, env, timeout: 60_000 }, (err, stdout, stderr) => resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr }));
  });
}

/** `npm run -s duet -- args`, with npm alone on the PATH. */
const duet = (args: string[], env: NodeJS.ProcessEnv) => run("npm", ["run", "-s", "duet", "--", ...args], env);
/** A line as a shell runs it. */
const shell = (line: string, env: NodeJS.ProcessEnv) => run("sh", ["-c", line], env);

let model: FakeModel;
beforeAll(async () => {
  model = await startFakeModel();
});
afterAll(() => model?.close());

describe("npm run dev, as a newcomer and a service manager run it", () => {
  let dev: Dev;
  let cliEnv: NodeJS.ProcessEnv;
  beforeAll(async () => {
    dev = await startDev(model, () => ["npm", ["run", "dev"]]);
    cliEnv = cleanEnv({ PATH: NPM_ONLY_PATH, DUET_HOME: dev.home, DUET_WORKER_PORT: String(dev.ports[0]) });
  }, 180_000);
  afterAll(() => cleanUp(dev));

  it("keeps every secret out of every process's command line; the Worker reads them from a 0600 file", async () => {
    const tokens = readFileSync(join(dev.home, "tokens.env"), "utf8");
    const secrets = [...tokens.matchAll(/=(\S+)/g)].map((m) => m[1]).concat(MODEL_KEY);
    expect(secrets).toHaveLength(3);
    const leaks: string[] = [];
    for (const pid of readdirSync("/proc").filter((e) => /^\d+$/.test(e))) {
      let cmdline: string;
      try {
        cmdline = readFileSync(`/proc/${pid}/cmdline`, "utf8").replace(/\0/g, " ");
      } catch {
        continue;
      }
      if (secrets.some((s) => cmdline.includes(s))) leaks.push(`${pid}: ${cmdline}`);
    }
    expect(leaks).toEqual([]);
    // The stack is one that has them: the CLI's own token is taken, and the model key is sent.
    expect((await duet(["ask", "npmroom", "SAY: keyed"], cliEnv)).stdout).toContain("keyed");
    expect(statSync(join(dev.home, "worker.env")).mode & 0o777).toBe(0o600);
  });

  it("runs the README's commands with npm alone, and failures are one clean line", async () => {
    // The README's CLI lines as a newcomer pastes them into a shell (those that need no id or input).
    const readme = readFileSync(join(REPO_ROOT, "README.md"), "utf8").split("\n");
    const lines = readme.filter((l) => /^npm run -s duet -- (run|ask|history|audit|reset) /.test(l)).map((l) => l.replace(/\s+#.*$/, ""));
    expect(lines).toHaveLength(5);
    for (const line of lines) {
      const res = await shell(line, cliEnv);
      expect(res, line).toMatchObject({ code: 0, stderr: "" });
      expect(res.stdout, line).not.toBe("");
    }
    expect(dev.output()).toContain("Try: npm run -s duet -- run demo 'uname -a'   or   npm run -s duet -- chat demo");
    const ran = await duet(["run", "demo", "uname -a"], cliEnv);
    expect(ran).toMatchObject({ code: 0, stderr: "" });
    expect(ran.stdout).toMatch(/^\$ uname -a\n {2}exit 0 · [\d.]+ m?s\n {2}│ Linux /);
    const history = await duet(["history", "demo"], cliEnv);
    expect(history.code).toBe(0);

    const refused = await duet(["history", "demo"], { ...cliEnv, DUET_API_TOKEN: "not-the-token" });
    expect(refused.code).toBe(1);
    expect(refused.stdout).toBe("");
    expect(refused.stderr.trim().split("\n")).toEqual([expect.stringContaining("DUET_API_TOKEN")]);
    const usage = await duet(["run", "bad room"], cliEnv);
    expect(usage.code).toBe(2);
    expect(usage.stderr).not.toMatch(/ELIFECYCLE|npm error|\$ tsx/);
    // Nine CLI processes, each starting npm and tsx.
  }, 240_000);

  it("stops everything, leaving no process and no open port, on a SIGTERM to npm", async () => {
    const started = descendants(await processes(), dev.child.pid!);
    expect(started.some((p) => /workerd/.test(p.args))).toBe(true);
    process.kill(dev.child.pid!, "SIGTERM");
    await expectAllStopped(dev, started);
  }, 60_000);
});

describe("npm run dev whose launcher dies", () => {
  let dev: Dev | undefined;
  afterAll(() => cleanUp(dev));

  it("stops everything when the script that ran `npm run dev` is killed", async () => {
    // `; true` keeps the shell from exec'ing npm: it stays npm's parent, as a script would.
    dev = await startDev(model, () => ["sh", ["-c", "npm run dev; true"]]);
    const started = descendants(await processes(), dev.child.pid!);
    expect(started.some((p) => /workerd/.test(p.args))).toBe(true);
    dev.child.kill("SIGKILL");
    await expectAllStopped(dev, started);
  }, 240_000);
});
