import { accessSync, constants } from "node:fs";
import { bwrapArgs, innerCommand, probeHostLayout, sandboxEnv, type HostLayout } from "./bwrap.ts";
import type { ExecutorConfig } from "./config.ts";
import { withShellState } from "@duet/shared";
import type { FileLimits } from "./files/file-store.ts";
import { Gate } from "./queue.ts";
import { runProcess, type RunResult, type Running } from "./runner.ts";
import { Workspaces, type Owner } from "./workspace.ts";

/**
 * The executor proper, without HTTP: runs a session's command in its sandbox (or,
 * with isolation "none", in a plain shell in its workspace) and deletes sessions.
 */

/** Commands allowed to wait for a slot before the executor answers "busy". */
export const MAX_WAITING = 256;
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

  constructor(readonly config: ExecutorConfig) {
    const root = process.getuid?.() === 0;
    this.owner = config.isolation === "bwrap" && root ? { uid: config.hostUid, gid: config.hostUid } : null;
    this.layout = probeHostLayout();
    this.workspaces = new Workspaces(config.root, this.owner);
    this.gate = new Gate(config.maxConcurrent, MAX_WAITING);
  }

  /** Creates the root and, with bubblewrap, proves it can build a sandbox. Throws StartupError. */
  async start(): Promise<void> {
    const refused = this.config.isolation === "bwrap" ? unenforceableNetwork(this.config.network) : undefined;
    if (refused) throw new StartupError(refused);
    if (this.config.isolation === "bwrap") {
      try {
        accessSync(this.config.bwrapPath, constants.X_OK);
      } catch {
        throw new StartupError(
          `bubblewrap is not installed (no executable ${this.config.bwrapPath}): install the Debian package \`bubblewrap\` (apt-get install bubblewrap), or set SANDBOX_ISOLATION=none to run commands without isolation`,
        );
      }
    }
    try {
      this.workspaces.init();
    } catch (err) {
      throw new StartupError(`cannot prepare SANDBOX_ROOT ${this.config.root}: ${(err as Error).message}`);
    }
    if (this.config.isolation === "bwrap") await this.probe();
  }

  private async probe(): Promise<void> {
    let result: RunResult;
    try {
      result = await this.spawn(this.workspaces.probeDir, "true", PROBE_TIMEOUT_MS).result;
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

  /** Limits the kernel cannot enforce in this set-up, for the start-up warning. */
  get warnings(): string[] {
    const w: string[] = [];
    if (this.config.isolation === "none") {
      w.push("SANDBOX_ISOLATION=none: commands run as a plain shell on this machine, with its network and files. Use only for trusted development.");
    } else if (!this.layout.prlimit) {
      w.push("prlimit (util-linux) not found: commands run without process and memory limits.");
    }
    return w;
  }

  /**
   * Runs `command` in the session's sandbox, waiting for a free slot first. Throws
   * BusyError when the line is full. `signal` (the caller hung up) kills the command,
   * so an abandoned `sleep 600` does not hold a slot for ten minutes.
   */
  async exec(sessionId: string, command: string, timeoutMs: number, signal?: AbortSignal): Promise<RunResult> {
    const release = await this.gate.enter();
    try {
      signal?.throwIfAborted();
      const workspace = this.workspaces.ensure(sessionId);
      // The working directory and exports the room's last command left (see withShellState).
      const run = this.spawn(workspace, withShellState(command), timeoutMs);
      const set = this.running.get(sessionId) ?? new Set();
      set.add(run);
      this.running.set(sessionId, set);
      const onAbort = () => run.kill();
      signal?.addEventListener("abort", onAbort, { once: true });
      try {
        return await run.result;
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
    this.workspaces.remove(sessionId);
  }

  /** Kills every running command (the executor is closing). */
  async stopAll(): Promise<void> {
    const runs = [...this.running.values()].flatMap((s) => [...s]);
    for (const run of runs) run.kill();
    await Promise.allSettled(runs.map((r) => r.result));
  }

  private spawn(workspace: string, command: string, timeoutMs: number): Running {
    const limits = { maxProcs: this.config.maxProcs, maxMemoryMb: this.config.maxMemoryMb };
    const base = { timeoutMs, maxOutputBytes: this.config.maxOutputBytes };
    if (this.config.isolation === "none") {
      return runProcess({ ...base, argv: [this.layout.shell, "-c", command], cwd: workspace, env: sandboxEnv(workspace, this.layout.shell) });
    }
    const shareNet = this.config.network.network === "all";
    const argv = bwrapArgs({ workspace, etcDir: this.workspaces.etcDir, argv: innerCommand(this.layout, limits, command), shareNet }, this.layout);
    return runProcess({
      ...base,
      argv: [this.config.bwrapPath, ...argv],
      // bwrap itself gets nothing from our environment either (it clears the sandbox's anyway).
      env: { PATH: "/usr/sbin:/usr/bin:/sbin:/bin" },
      cwd: "/",
      uid: this.owner?.uid,
      gid: this.owner?.gid,
    });
  }
}
