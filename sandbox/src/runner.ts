import { spawn, type ChildProcess } from "node:child_process";
import { constants } from "node:os";
import type { Readable } from "node:stream";

/**
 * Runs one process to completion with the executor's caps: a deadline that kills its
 * whole process group, and stdout/stderr each kept up to `maxOutputBytes`.
 *
 * Under bubblewrap the process is `bwrap` itself: killing it (SIGKILL) takes down the
 * sandbox's PID namespace, so every process the command started dies with it.
 */

/** Exit code reported for a command stopped at its deadline (as coreutils `timeout`). */
export const TIMEOUT_EXIT_CODE = 124;
/** Exit code reported for a command stopped for flooding output (128 + SIGKILL). */
export const KILLED_EXIT_CODE = 137;
/**
 * Past the cap we keep draining (so a command that prints a lot and then finishes
 * still reports its own exit code) until this many times the cap was discarded;
 * then the command is stopped, so `yes` does not run to its deadline.
 */
export const DRAIN_FACTOR = 8;
/** After SIGKILL, how long to wait for the pipes to close before giving up on them. */
const CLOSE_GRACE_MS = 2_000;

export interface RunOptions {
  argv: string[];
  env: Record<string, string>;
  cwd?: string;
  /** Host identity to run as (when the executor is root and drops privileges). */
  uid?: number;
  gid?: number;
  timeoutMs: number;
  maxOutputBytes: number;
  /**
   * Set-up to finish before the command may start (its private network): the child
   * gets fd 3 and stdin as pipes and waits for a line on stdin; what `prepare`
   * resolves with is called once the command is over.
   */
  prepare?: (child: ChildProcess) => Promise<() => void>;
}

export interface RunResult {
  exitCode: number;
  stdout: string;
  stderr: string;
  truncated: boolean;
  timedOut: boolean;
  durationMs: number;
}

export interface Running {
  result: Promise<RunResult>;
  /** Stops the command now (its session is being deleted, the caller hung up, or the executor is closing). */
  kill(): void;
}

class Capture {
  private chunks: Buffer[] = [];
  kept = 0;
  dropped = 0;

  constructor(private readonly max: number) {}

  push(chunk: Buffer): void {
    const room = this.max - this.kept;
    if (room > 0) {
      const part = chunk.length > room ? chunk.subarray(0, room) : chunk;
      this.chunks.push(part);
      this.kept += part.length;
    }
    this.dropped += Math.max(0, chunk.length - Math.max(0, room));
  }

  text(): string {
    return Buffer.concat(this.chunks).toString("utf8");
  }
}

export function runProcess(opts: RunOptions): Running {
  const started = Date.now();
  let child: ReturnType<typeof spawn>;
  try {
    child = spawnChild(opts);
  } catch (e) {
    // Node's message quotes the offending argument, which is the command: say only what failed.
    const code = (e as NodeJS.ErrnoException).code ?? "error";
    return { result: Promise.reject(new Error(`cannot start ${opts.argv[0]}: ${code}`)), kill: () => {} };
  }

  let cleanup: (() => void) | undefined;
  let setupError: Error | undefined;
  let closed = false;

  const out = new Capture(opts.maxOutputBytes);
  const err = new Capture(opts.maxOutputBytes);
  let stopReason: "timeout" | "output" | "killed" | null = null;

  const killGroup = () => {
    if (child.pid === undefined) return;
    try {
      process.kill(-child.pid, "SIGKILL");
    } catch {
      // Already gone.
    }
  };

  let graceTimer: NodeJS.Timeout | undefined;
  const stop = (reason: NonNullable<typeof stopReason>) => {
    if (stopReason) return;
    stopReason = reason;
    killGroup();
    // A process that escaped the group could hold the pipes open forever; stop waiting for it.
    graceTimer = setTimeout(() => {
      child.stdout?.destroy();
      child.stderr?.destroy();
    }, CLOSE_GRACE_MS);
  };

  const drain = (stream: Readable | null, capture: Capture) => {
    stream?.on("data", (chunk: Buffer) => {
      capture.push(chunk);
      if (capture.dropped > opts.maxOutputBytes * DRAIN_FACTOR) stop("output");
    });
    // A destroyed pipe (see `stop`) reports an error; the result is decided elsewhere.
    stream?.on("error", () => {});
  };
  drain(child.stdout, out);
  drain(child.stderr, err);

  const deadline = setTimeout(() => stop("timeout"), opts.timeoutMs);
  opts.prepare?.(child).then(
    (done) => {
      cleanup = done;
      if (stopReason || closed) return done();
      child.stdin?.end("\n");
    },
    (e: Error) => {
      setupError = e;
      stop("killed");
    },
  );
  child.stdin?.on("error", () => {});

  const result = new Promise<RunResult>((resolve, reject) => {
    let settled = false;
    child.once("error", (e) => {
      if (settled) return;
      settled = true;
      clearTimeout(deadline);
      reject(new Error(`cannot start ${opts.argv[0]}: ${e.message}`));
    });
    // The shell has exited: anything it left running in the background goes too,
    // as it would when a sandbox's PID namespace ends.
    child.once("exit", () => killGroup());
    child.once("close", (code, signal) => {
      if (settled) return;
      settled = true;
      clearTimeout(deadline);
      clearTimeout(graceTimer);
      closed = true;
      cleanup?.();
      if (setupError) return reject(setupError);
      const truncated = out.dropped > 0 || err.dropped > 0;
      let stderr = err.text();
      let exitCode = code ?? KILLED_EXIT_CODE;
      if (stopReason === "timeout") {
        exitCode = TIMEOUT_EXIT_CODE;
        stderr += note(`command timed out after ${opts.timeoutMs} ms and was killed`);
      } else if (stopReason === "output") {
        exitCode = KILLED_EXIT_CODE;
        stderr += note(`command was killed after printing more than ${opts.maxOutputBytes * (DRAIN_FACTOR + 1)} bytes`);
      } else if (stopReason === "killed") {
        exitCode = KILLED_EXIT_CODE;
        stderr += note("command was killed: its sandbox was deleted, the caller hung up, or the executor stopped");
      } else if (signal) {
        exitCode = 128 + (constants.signals[signal] ?? 9);
      }
      if (truncated) stderr += note(`output cut at ${opts.maxOutputBytes} bytes per stream`);
      resolve({
        exitCode,
        stdout: out.text(),
        stderr,
        truncated,
        timedOut: stopReason === "timeout",
        durationMs: Date.now() - started,
      });
    });
  });

  return { result, kill: () => stop("killed") };
}

function spawnChild(opts: RunOptions) {
  return spawn(opts.argv[0], opts.argv.slice(1), {
    cwd: opts.cwd,
    env: opts.env,
    uid: opts.uid,
    gid: opts.gid,
    // Its own process group, so one kill(-pgid) reaches everything it started
    // (all of it without isolation; bwrap and, through --die-with-parent, the sandbox with it).
    detached: true,
    stdio: opts.prepare ? ["pipe", "pipe", "pipe", "pipe"] : ["ignore", "pipe", "pipe"],
  });
}

function note(text: string): string {
  return `\n[sandbox] ${text}\n`;
}
