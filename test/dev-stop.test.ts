import { execFile, execFileSync, spawn, type ChildProcess } from "node:child_process";
import { existsSync, readFileSync, readdirSync, rmSync, rmdirSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { liveGroupMembers } from "../scripts/dev/processes.ts";
import { portFree } from "../scripts/dev/ready.ts";
import { cleanEnv, descendants, executorCgroups, mountsUnder, processes, stillRunning, tempHome, watchOutput, type WatchedOutput } from "./helpers/dev-processes.ts";
import { quietPort } from "./helpers/ports.ts";
import { REPO_ROOT } from "./helpers/worker.ts";

/**
 * `npm run dev` stopped the ways a person or a service manager stops it: Ctrl-C in a
 * terminal, a pipe whose reader went away, SIGTERM to its whole process group. Each
 * time every room's disk is unmounted, the executor's cgroups removed, and nothing it
 * started keeps running or holds the Worker's port.
 */

const TSX = join(REPO_ROOT, "node_modules", ".bin", "tsx");

interface Stack extends WatchedOutput {
  child: ChildProcess;
  home: string;
  workerPort: number;
}

const started: Stack[] = [];

afterEach(async () => {
  for (const s of started.splice(0)) {
    if (s.child.exitCode === null && s.child.signalCode === null) {
      process.kill(-s.child.pid!, "SIGKILL");
      await s.exited;
    }
    // A background start outlives the shell that led its group.
    if (liveGroupMembers(s.child.pid!).length > 0) process.kill(-s.child.pid!, "SIGKILL");
    // What a failed stop left mounted, so the folder can go.
    for (const at of mountsUnder(s.home).reverse()) execFileSync("umount", ["-l", at]);
    for (const dir of executorCgroups(join(s.home, "sandboxes"))) {
      for (const room of readdirSync(dir, { withFileTypes: true })) if (room.isDirectory()) rmdirSync(join(dir, room.name));
      rmdirSync(dir);
    }
    rmSync(s.home, { recursive: true, force: true });
  }
});

/**
 * `command(workerPort)` (argv) started in a group of its own, with `npm run dev`'s environment on free ports.
 * DUET_WORKER_PORT names another free port: the command says `--port` when it means the Worker's.
 */
async function startStack(command: (workerPort: number) => string[], viaEnv = true): Promise<Stack> {
  const home = tempHome();
  const workerPort = await quietPort();
  const envPort = viaEnv ? workerPort : await quietPort();
  const env = cleanEnv({ DUET_HOME: home, DUET_WORKER_PORT: String(envPort), SANDBOX_PORT: String(await quietPort()) });
  const argv = command(workerPort);
  const child = spawn(argv[0]!, argv.slice(1), { cwd: REPO_ROOT, env, detached: true, stdio: ["pipe", "pipe", "pipe"] });
  const stack: Stack = { child, home, workerPort, ...watchOutput(child, argv.join(" ")) };
  started.push(stack);
  return stack;
}

/** Runs a command in two rooms, so each has its disk mounted, and returns what the stack runs by then. */
async function useRooms(stack: Stack): Promise<number[]> {
  await stack.waitFor(/\[dev\] ready/);
  const env = cleanEnv({ DUET_HOME: stack.home, DUET_WORKER_URL: `http://127.0.0.1:${stack.workerPort}` });
  for (const room of ["stop-one", "stop-two"]) {
    const out = await new Promise<string>((resolve) =>
      execFile(TSX, ["scripts/duet-cli.ts", "run", room, "echo ran"], { cwd: REPO_ROOT, env, timeout: 60_000 }, (_err, stdout, stderr) => resolve(stdout + stderr)),
    );
    expect(out).toContain("│ ran");
  }
  // Without the mounts and cgroups there, their absence afterwards would prove nothing.
  expect(mountsUnder(stack.home).length).toBeGreaterThanOrEqual(2);
  expect(executorCgroups(join(stack.home, "sandboxes")).length).toBeGreaterThan(0);
  return descendants(await processes(), stack.child.pid!).map((p) => p.pid);
}

async function expectNothingLeft(stack: Stack, pids: number[]): Promise<void> {
  expect(mountsUnder(stack.home)).toEqual([]);
  expect(executorCgroups(join(stack.home, "sandboxes"))).toEqual([]);
  expect(await stillRunning(pids, stack.home)).toEqual([]);
  await expect(portFree(stack.workerPort)).resolves.toBeUndefined();
}

/** A healthy start shows Duet's summary, not wrangler's bindings table or a workerd stack. */
function expectQuietStart(output: string): void {
  expect(output).toContain("[dev] running:");
  expect(output).not.toMatch(/following bindings|Binding\s+Resource|env\.DUET_AGENT/);
  expect(output).not.toMatch(/kj\/|kj::|Broken pipe|^\S*\s*stack: /m);
}

describe("npm run dev stops everything it started", () => {
  it("on Ctrl-C in a terminal (the Worker on the port --port names)", async () => {
    // util-linux `script` gives npm a pseudo-terminal; a Ctrl-C typed into it reaches the whole foreground group.
    // `exec`: as from a person's shell, npm leads the group itself. Without it the `sh -c` that `script`
    // starts when SHELL is unset (dash) would die of the Ctrl-C and report 130 whatever npm did.
    const stack = await startStack((port) => ["script", "-qfec", `exec npm run dev -- --port ${port}`, "/dev/null"], false);
    const pids = await useRooms(stack);
    stack.child.stdin!.write("\x03");
    expect(await stack.exited, stack.output()).toBe(0);
    expect(stack.output()).toContain("[dev] SIGINT received, stopping everything");
    expect(stack.output()).toContain("[dev] stopped");
    await expectNothingLeft(stack, pids);
    expectQuietStart(stack.output());
  }, 240_000);

  it("when its output's reader is gone and its process group gets SIGTERM, as from a service manager", async () => {
    const stack = await startStack(() => ["npm", "run", "dev"]);
    const pids = await useRooms(stack);
    const before = stack.output();
    // `npm run dev | tee log` ended by Ctrl-C: the reader goes first, every later write fails with EPIPE.
    stack.child.stdout!.destroy();
    process.kill(-stack.child.pid!, "SIGTERM");
    await stack.exited;
    await expectNothingLeft(stack, pids);
    // Quietly: no stack trace on the stderr that still goes somewhere.
    expect(stack.output().slice(before.length)).not.toMatch(/EPIPE|Error|    at /);
  }, 240_000);
});

describe("npm run dev in the background", () => {
  it("keeps running after the script that started it exits, answers /health, and stops everything on SIGTERM to its group", async () => {
    const home = tempHome();
    const workerPort = await quietPort();
    const env = cleanEnv({ DUET_HOME: home, DUET_WORKER_PORT: String(workerPort), SANDBOX_PORT: String(await quietPort()) });
    const log = join(home, "dev.log");
    // As a deploy script does it: the shell starts npm in the background, waits until it is ready, and exits.
    const waitReady = `until grep -q 'dev\\] ready' '${log}' 2>/dev/null; do sleep 0.5; kill -0 $! 2>/dev/null || exit 3; done`;
    const script = spawn("sh", ["-c", `nohup npm run dev -- --background >'${log}' 2>&1 & ${waitReady}`], { cwd: REPO_ROOT, env, detached: true, stdio: "ignore" });
    const group = script.pid!;
    const read = () => (existsSync(log) ? readFileSync(log, "utf8") : "");
    const exited = new Promise<number | null>((resolve) => script.once("exit", resolve));
    started.push({ child: script, home, workerPort, output: read, waitFor: () => Promise.resolve(), exited });
    expect(await exited, read()).toBe(0);
    const scriptGone = Date.now();
    expect(read()).toContain("[dev] ready, in the background");
    const ran = await new Promise<string>((resolve) =>
      execFile(TSX, ["scripts/duet-cli.ts", "run", "background", "echo ran"], { cwd: REPO_ROOT, env: cleanEnv({ DUET_HOME: home, DUET_WORKER_URL: `http://127.0.0.1:${workerPort}` }), timeout: 60_000 }, (_e, out, err) => resolve(out + err)),
    );
    expect(ran).toContain("│ ran");
    expect(mountsUnder(home).length).toBeGreaterThan(0);
    // 3 s after the script exited (six looks of the launcher watch, the command's run counted in), it still runs and answers.
    await new Promise((r) => setTimeout(r, Math.max(0, scriptGone + 3_000 - Date.now())));
    expect(read()).not.toContain("stopping everything");
    expect((await fetch(`http://127.0.0.1:${workerPort}/health`)).status).toBe(200);
    const pids = liveGroupMembers(group);
    expectQuietStart(read());

    process.kill(-group, "SIGTERM");
    for (const deadline = Date.now() + 60_000; liveGroupMembers(group).length > 0 && Date.now() < deadline; ) await new Promise((r) => setTimeout(r, 250));
    expect(read()).toContain("[dev] stopped");
    expect(mountsUnder(home)).toEqual([]);
    expect(executorCgroups(join(home, "sandboxes"))).toEqual([]);
    expect(await stillRunning(pids, home)).toEqual([]);
    await expect(portFree(workerPort)).resolves.toBeUndefined();
  }, 300_000);
});
