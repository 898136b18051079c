import { accessSync, constants } from "node:fs";
import { bwrapArgs, innerCommand, probeHostLayout, sandboxEnv, type HostLayout } from "./bwrap.ts";
import type { ExecutorConfig } from "./config.ts";
import { RoomCgroups } from "./cgroup.ts";
import { findDiskTools, RoomDisks } from "./disk.ts";
import { findProgram, launchArgv } from "./launch.ts";
import { connectPrivateNet, findNetTools, type NetTools } from "./netns.ts";
import { withShellState } from "@duet/shared";
import type { FileLimits } from "./files/file-store.ts";
import { removeMirror } from "./git/checkout.ts";
import { Gate, gateLimitsOf } from "./queue.ts";
import { runProcess, type RunResult, type Running } from "./runner.ts";
import { Workspaces, type Owner } from "./workspace.ts";

/**
 * The executor proper, without HTTP: runs a session's command in its sandbox (or,
 * with isolation "none", in a plain shell in its workspace) and deletes sessions.
 */

/** The start-up check's deadline; bwrap needs ~10 ms, a loaded machine far more. */
const PROBE_TIMEOUT_MS = 15_000;

/** A start-up failure, as one line a person can act on. */
export class StartupError extends Error {}

/**
 * What bubblewrap cannot do with SANDBOX_NETWORK, as the line start-up refuses with.
 * A sandbox gets either no network namespace of its own or the host's: there is no
 * place to apply a host list. Refused rather than quietly run with none (installs
 * the operator asked for would fail with no reason given) or all (hosts they shut
 * out would be open).
 */
export function unenforceableNetwork({ network, allowedHosts, deniedHosts }: ExecutorConfig["network"]): string | undefined {
  const why = "bubblewrap gives a sandbox no network or the machine's whole network, never a list of hosts";
  if (network === "registries") {
    return `SANDBOX_NETWORK=registries cannot be enforced by the local sandbox executor (${why}): set SANDBOX_NETWORK=none or all here; registries works with SANDBOX_PROVIDER=cloudflare`;
  }
  if (network === "none" && allowedHosts.length > 0) {
    return `SANDBOX_ALLOWED_HOSTS cannot be enforced by the local sandbox executor (${why}): unset it, or set SANDBOX_NETWORK=all`;
  }
  if (network === "all" && deniedHosts.length > 0) {
    return `SANDBOX_DENIED_HOSTS cannot be enforced by the local sandbox executor with SANDBOX_NETWORK=all (${why}): unset it, or set SANDBOX_NETWORK=none`;
  }
  return undefined;
}

export class Executor {
  readonly workspaces: Workspaces;
  private readonly layout: HostLayout;
  private readonly gate: Gate;
  /** Host identity bwrap runs as; null when the executor is not root (bwrap then runs as us). */
  private readonly owner: Owner | null;
  private readonly running = new Map<string, Set<Running>>();
  /** Set when SANDBOX_NETWORK=all: the programs that give each command a private network. */
  private netTools: NetTools | null = null;
  /** Per-room cgroups when the executor is root and bubblewrap isolates; null otherwise. */
  private cgroups: RoomCgroups | null = null;
  /** setpriv, which drops a root launch to the owner uid (see launch.ts). */
  private setpriv: string | undefined;
  /** Why rooms have no disk quota here; undefined when they do. */
  private diskProblem: string | undefined;

  constructor(readonly config: ExecutorConfig) {
    const root = process.getuid?.() === 0;
    this.owner = config.isolation === "bwrap" && root ? { uid: config.hostUid, gid: config.hostUid } : null;
    this.layout = probeHostLayout();
    const disk = config.isolation === "none" ? "SANDBOX_ISOLATION=none" : findDiskTools(root);
    if (typeof disk === "string") this.diskProblem = disk;
    const disks = typeof disk === "string" ? null : new RoomDisks(disk, config.workspaceMaxBytes, this.owner ?? { uid: 0, gid: 0 });
    this.workspaces = new Workspaces(config.root, this.owner, disks);
    this.gate = new Gate(gateLimitsOf(config.maxConcurrent), config.maxWaiting);
  }

  /** Creates the root and, with bubblewrap, proves it can build a sandbox. Throws StartupError. */
  async start(): Promise<void> {
    const refused = this.config.isolation === "bwrap" ? unenforceableNetwork(this.config.network) : undefined;
    if (refused) throw new StartupError(refused);
    if (this.config.isolation === "bwrap" && this.config.network.network === "all") {
      const tools = findNetTools(process.getuid?.() === 0);
      if (typeof tools === "string") throw new StartupError(tools);
      this.netTools = tools;
    }
    if (this.config.isolation === "bwrap") {
      try {
        accessSync(this.config.bwrapPath, constants.X_OK);
      } catch {
        throw new StartupError(
          `bubblewrap is not installed (no executable ${this.config.bwrapPath}): install the Debian package \`bubblewrap\` (apt-get install bubblewrap), or set SANDBOX_ISOLATION=none to run commands without isolation`,
        );
      }
    }
    if (this.owner) {
      this.setpriv = findProgram("setpriv");
      if (!this.setpriv) throw new StartupError("setpriv is not installed: install the Debian package `util-linux`");
      const { maxMemoryMb, maxProcs, maxCpus } = this.config;
      this.cgroups = new RoomCgroups(this.config.root, { memoryBytes: maxMemoryMb * 1024 * 1024, maxProcs, cpus: maxCpus }, true);
    }
    try {
      this.workspaces.init();
    } catch (err) {
      throw new StartupError(`cannot prepare SANDBOX_ROOT ${this.config.root}: ${(err as Error).message}`);
    }
    try {
      await this.workspaces.ensureProbe();
    } catch (err) {
      // No loop devices (a container without them, say): plain folders, and start-up says so.
      this.workspaces.disks = null;
      this.diskProblem = `cannot loop-mount a filesystem here: ${(err as Error).message.trim().split("\n").pop()}`;
    }
    if (this.config.isolation === "bwrap") {
      // Not started: nothing is left mounted behind the refusal.
      await this.probe().catch(async (err) => {
        await this.workspaces.unmountAll();
        throw err;
      });
    }
  }

  private async probe(): Promise<void> {
    let result: RunResult;
    try {
      result = await this.spawn(null, this.workspaces.probeDir, "true", PROBE_TIMEOUT_MS).result;
    } catch (err) {
      throw new StartupError(`bubblewrap at ${this.config.bwrapPath} cannot be started: ${(err as Error).message}`);
    }
    if (result.exitCode !== 0) {
      const why = result.stderr.trim().split("\n")[0] || `exit code ${result.exitCode}`;
      const as = this.owner ? ` as uid ${this.owner.uid} (SANDBOX_HOST_UID; it must be able to reach ${this.config.root})` : "";
      throw new StartupError(`bubblewrap at ${this.config.bwrapPath} cannot create a sandbox${as}: ${why}`);
    }
  }

  /** The limits of the files API (DUET_FILE_MAX_BYTES, SANDBOX_WORKSPACE_MAX_BYTES). */
  get fileLimits(): FileLimits {
    return { fileMaxBytes: this.config.fileMaxBytes, workspaceMaxBytes: this.config.workspaceMaxBytes };
  }

  /** Who files written through the files API belong to on the host: the sandbox's identity, so its commands can change them. */
  get fileOwner(): Owner | null {
    return this.owner;
  }

  get isolation(): "bwrap" | "none" {
    return this.config.isolation;
  }

  /** What holds per room, for the start-up line. */
  get limits(): string {
    const held = this.cgroups?.enforced ?? [];
    const { maxMemoryMb, maxProcs, maxCpus } = this.config;
    const parts = [
      held.includes("memory") ? `memory ${maxMemoryMb} MiB` : "memory NOT enforced",
      held.includes("pids") ? `${maxProcs} processes` : "processes per command only",
      held.includes("cpu") ? `${maxCpus} CPU` : "CPU NOT enforced",
      this.workspaces.disks ? `disk ${mib(this.config.workspaceMaxBytes)}` : "disk NOT enforced",
    ];
    return `per room: ${parts.join(", ")}`;
  }

  /** Limits the kernel cannot enforce in this set-up, for the start-up warning. */
  get warnings(): string[] {
    const w: string[] = [];
    if (this.config.isolation === "none") {
      w.push("SANDBOX_ISOLATION=none: commands run as a plain shell on this machine, with its network and files. Use only for trusted development.");
    } else if (!this.layout.prlimit) {
      w.push("prlimit (util-linux) not found: commands run without process and memory limits.");
    }
    if (this.config.isolation === "bwrap" && !this.cgroups?.enforced.length) {
      const why = this.cgroups?.problem ?? "the executor does not run as root";
      w.push(`memory, processes and CPU are NOT capped per room on this host (${why}): only per process (RLIMIT_DATA, which shared memory gets round; RLIMIT_NPROC).`);
    }
    if (this.diskProblem && this.config.isolation === "bwrap") {
      w.push(`SANDBOX_WORKSPACE_MAX_BYTES is NOT enforced on this host (${this.diskProblem}): a room can fill the disk its workspace is on.`);
    }
    return w;
  }

  /**
   * Runs `command` in the session's sandbox, waiting for its room's turn first (see
   * Gate). Throws BusyError when the line is full. `signal` (the caller hung up) kills the command,
   * so an abandoned `sleep 600` does not hold a slot for ten minutes. `person`: who the command runs for,
   * so one person's rooms share one person's part of the executor.
   */
  async exec(sessionId: string, command: string, timeoutMs: number, signal?: AbortSignal, person?: string): Promise<RunResult> {
    // The working directory and exports the room's last command left (see withShellState).
    return this.execIn(sessionId, () => withShellState(command), timeoutMs, signal, [], person);
  }

  /**
   * Runs one of Duet's own steps in the session's sandbox, in the room's turn
   * like any command: `script` is the shell text (without the room's shell
   * state), and the `readOnly` host folders are bound read-only inside. Without isolation the step runs in a plain shell and
   * sees those folders at their host paths.
   */
  execStep(sessionId: string, script: string, timeoutMs: number, readOnly: Array<{ host: string; inside: string }>, signal?: AbortSignal): Promise<RunResult> {
    return this.execIn(sessionId, () => script, timeoutMs, signal, readOnly);
  }

  private async execIn(
    sessionId: string,
    command: () => string,
    timeoutMs: number,
    signal?: AbortSignal,
    readOnly: Array<{ host: string; inside: string }> = [],
    person?: string,
  ): Promise<RunResult> {
    const release = await this.gate.enter(sessionId, { person, signal });
    try {
      signal?.throwIfAborted();
      const workspace = await this.workspaces.ensure(sessionId);
      // The caller may have gone while the room's disk was made (a new room's mkfs and mount take a while):
      // nothing may start for it then. From here to the listener below nothing waits, so no hang-up is missed.
      signal?.throwIfAborted();
      const oomBefore = this.cgroups?.oomKills(sessionId) ?? 0;
      const run = this.spawn(sessionId, workspace, command(), timeoutMs, readOnly);
      const set = this.running.get(sessionId) ?? new Set();
      set.add(run);
      this.running.set(sessionId, set);
      const onAbort = () => run.kill();
      signal?.addEventListener("abort", onAbort, { once: true });
      try {
        const result = await run.result;
        if ((this.cgroups?.oomKills(sessionId) ?? 0) > oomBefore) {
          result.stderr += `\n[sandbox] a process was killed: the room's commands reached their memory limit (${this.config.maxMemoryMb} MiB, SANDBOX_MAX_MEMORY_MB)\n`;
        }
        if (this.workspaces.isFull(sessionId)) {
          result.stderr += `\n[sandbox] this room's workspace is full (${mib(this.config.workspaceMaxBytes)}, SANDBOX_WORKSPACE_MAX_BYTES): delete files to make room\n`;
        }
        return result;
      } finally {
        signal?.removeEventListener("abort", onAbort);
        set.delete(run);
        if (set.size === 0 && this.running.get(sessionId) === set) this.running.delete(sessionId);
      }
    } finally {
      release();
    }
  }

  /** Stops the session's running commands and deletes its workspace. Idempotent. */
  async destroy(sessionId: string): Promise<void> {
    const set = this.running.get(sessionId);
    if (set) {
      const runs = [...set];
      for (const run of runs) run.kill();
      // Wait for them to be gone, so nothing writes into the folder as it is deleted.
      await Promise.allSettled(runs.map((r) => r.result));
    }
    await this.workspaces.remove(sessionId);
    await removeMirror(this.config.root, sessionId);
    this.cgroups?.remove(sessionId);
  }

  /** Kills every running command (the executor is closing). */
  async stopAll(): Promise<void> {
    const runs = [...this.running.values()].flatMap((s) => [...s]);
    for (const run of runs) run.kill();
    await Promise.allSettled(runs.map((r) => r.result));
    this.cgroups?.close();
    await this.workspaces.unmountAll();
  }

  /** `sessionId` null: the start-up probe, which joins no room's groups. */
  private spawn(sessionId: string | null, workspace: string, command: string, timeoutMs: number, readOnly: Array<{ host: string; inside: string }> = []): Running {
    const limits = { maxProcs: this.config.maxProcs, maxMemoryMb: this.config.maxMemoryMb };
    const base = { timeoutMs, maxOutputBytes: this.config.maxOutputBytes };
    if (this.config.isolation === "none") {
      return runProcess({ ...base, argv: [this.layout.shell, "-c", command], cwd: workspace, env: sandboxEnv(workspace, this.layout.shell) });
    }
    const net = this.netTools;
    const argv = [this.config.bwrapPath, ...bwrapArgs({ workspace, etcDir: this.workspaces.etcDir, argv: innerCommand(this.layout, limits, command), shareNet: !!net, readOnly }, this.layout)];
    if (this.owner && this.setpriv) {
      const cgroupProcs = sessionId && this.cgroups ? this.cgroups.ensure(sessionId) : [];
      return runProcess({
        ...base,
        argv: launchArgv({ uid: this.owner.uid, setpriv: this.setpriv, cgroupProcs, unshare: net?.unshare, inner: argv }),
        env: { PATH: "/usr/sbin:/usr/bin:/sbin:/bin" },
        cwd: "/",
        prepare: net ? (child) => connectPrivateNet(net, child, cgroupProcs) : undefined,
      });
    }
    return runProcess({
      ...base,
      argv,
      // bwrap itself gets nothing from our environment either (it clears the sandbox's anyway).
      env: { PATH: "/usr/sbin:/usr/bin:/sbin:/bin" },
      cwd: "/",
      uid: this.owner?.uid,
      gid: this.owner?.gid,
    });
  }
}

/** A size as the executor's lines say it: whole GiB, else MiB. */
export const mib = (bytes: number) => (bytes % (1024 * 1024 * 1024) === 0 ? `${bytes / (1024 * 1024 * 1024)} GiB` : `${Math.round(bytes / (1024 * 1024))} MiB`);
