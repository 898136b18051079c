import { getSandbox, parseSSEStream, type ExecEvent } from "@cloudflare/sandbox";
import { RUN_OUTPUT_MAX_BYTES, withShellState } from "@duet/shared";
import { containerId } from "./container-id.ts";
import { inProcessGroup } from "./process-group.ts";
import { SandboxError, type RawExecResult, type SandboxExecutor } from "./types.ts";
import type { WorkspaceKeeper } from "./workspace-keeper.ts";

type RoomSandbox = ReturnType<typeof getSandbox>;

/** Exit code reported for a command killed at its deadline (as coreutils `timeout` and the local executor). */
const TIMEOUT_EXIT_CODE = 124;
/** How long a stop or a timeout waits for the container to confirm the kill before giving up on it. */
const KILL_WAIT_MS = 10_000;
/**
 * Output kept per stream: one unit past the cap the turn applies, so its cut (and
 * its "truncated") come out as they would from the whole output, which a
 * runaway command could make too large to hold.
 */
const KEPT_UNITS = RUN_OUTPUT_MAX_BYTES + 1;

/** The abort reason when a command's deadline passed (a stop's reason is the turn's). */
const DEADLINE = Symbol("deadline");
/** What a run answers when its container turned out not to be restored yet: it ran nothing. */
const NOT_READY = Symbol("not ready");

/**
 * Production: one @cloudflare/sandbox container per room, its id from containerId().
 *
 * A command is streamed (`execStream`: one request to the container, as `exec`
 * was) rather than run by `exec`, because the container can only kill a
 * process, and an `exec` is none: it runs in the session's own shell until it
 * ends. A streamed command is a process; a stop or the deadline finds it in the
 * container's process list and kills it (two more requests, only then), and
 * process-group.ts makes that kill reach everything the command started. The
 * AbortSignal itself never crosses to the Sandbox Durable Object (RPC cannot
 * carry one); it ends the wait here and sends the kill.
 *
 * With a `keeper` (an R2 bucket is bound), the workspace outlives the
 * container: a new container is filled from the saved copy before its first
 * command, and `save` stores it (workspace-keeper.ts).
 */
export class CloudflareExecutor implements SandboxExecutor {
  /** Each room's id, digested once (a DuetAgent is one room, so this holds one entry). */
  private readonly ids = new Map<string, Promise<string>>();

  constructor(private readonly ns: DurableObjectNamespace, private readonly keeper: WorkspaceKeeper | null = null) {}

  private id(roomId: string): Promise<string> {
    let id = this.ids.get(roomId);
    if (!id) this.ids.set(roomId, (id = containerId(roomId)));
    return id;
  }

  private async sandbox(roomId: string): Promise<RoomSandbox> {
    // The namespace is typed loosely in Env so local builds need no Sandbox class.
    return getSandbox(this.ns as never, await this.id(roomId));
  }

  async exec(roomId: string, cmd: string, timeoutMs: number, stop?: AbortSignal): Promise<RawExecResult> {
    if (stop?.aborted) throw stop.reason;
    const keeper = this.keeper;
    if (!keeper) return (await this.run(roomId, cmd, timeoutMs, stop, null)) as RawExecResult;
    await keeper.ensure(roomId, await this.id(roomId), await this.sandbox(roomId));
    const first = await this.run(roomId, cmd, timeoutMs, stop, keeper);
    if (first !== NOT_READY) return first;
    // The container was replaced since the last command (sleep, crash, deploy): restore, then run it.
    await keeper.restore(roomId, await this.id(roomId), await this.sandbox(roomId));
    const again = await this.run(roomId, cmd, timeoutMs, stop, keeper);
    if (again === NOT_READY) throw new SandboxError("the sandbox failed: its workspace was restored but the container lost it at once");
    return again;
  }

  async save(roomId: string, written = false): Promise<void> {
    if (this.keeper) await this.keeper.save(roomId, await this.id(roomId), await this.sandbox(roomId), written);
  }

  /** One command, streamed; behind the keeper's readiness check when there is one. */
  private async run(roomId: string, cmd: string, timeoutMs: number, stop: AbortSignal | undefined, keeper: WorkspaceKeeper | null): Promise<RawExecResult | typeof NOT_READY> {
    if (stop?.aborted) throw stop.reason;
    const started = Date.now();
    const ended = new AbortController();
    const onStop = () => ended.abort(stop?.reason);
    stop?.addEventListener("abort", onStop, { once: true });
    // The container does not apply a deadline to a streamed command: this one does.
    const deadline = setTimeout(() => ended.abort(DEADLINE), timeoutMs);
    const out = new Kept();
    const err = new Kept();
    // The working directory and exports the room's last command left travel with the workspace (withShellState).
    const runId = crypto.randomUUID();
    const guarded = keeper?.guard(roomId, withShellState(cmd), (inner) => inProcessGroup(inner, runId));
    const command = guarded?.command ?? inProcessGroup(withShellState(cmd), runId);
    let opened: Promise<ReadableStream<Uint8Array>> | undefined;
    let sandbox: RoomSandbox | undefined;
    try {
      sandbox = await untilEnded(this.sandbox(roomId), ended.signal);
      opened = sandbox.execStream(command);
      for await (const event of parseSSEStream<ExecEvent>(await untilEnded(opened, ended.signal), ended.signal)) {
        if (event.type === "stdout") out.add(event.data);
        else if (event.type === "stderr") err.add(event.data);
        else if (event.type === "complete") {
          if (guarded?.notReady(event.exitCode ?? 0, err.text)) return NOT_READY;
          const stderr = guarded ? guarded.finish(err.text) : err.text;
          return { exitCode: event.exitCode ?? 0, stdout: out.text, stderr, durationMs: Date.now() - started, truncated: out.cut || err.cut };
        } else if (event.type === "error") throw new Error(event.error ?? event.data ?? "the command failed to run");
      }
      throw new Error("the container's answer ended before the command did");
    } catch (error) {
      if (!ended.signal.aborted) throw new SandboxError(`the sandbox failed: ${(error as Error).message}`.slice(0, 300));
      if (sandbox && opened) await killRun(sandbox, command, opened);
      if (ended.signal.reason !== DEADLINE) throw ended.signal.reason;
      return {
        exitCode: TIMEOUT_EXIT_CODE,
        stdout: out.text,
        stderr: `${err.text}\n[sandbox] command timed out after ${timeoutMs} ms and was killed\n`,
        durationMs: Date.now() - started,
        truncated: out.cut || err.cut,
      };
    } finally {
      clearTimeout(deadline);
      stop?.removeEventListener("abort", onStop);
    }
  }

  async destroy(roomId: string): Promise<void> {
    try {
      await (await this.sandbox(roomId)).destroy();
    } catch (err) {
      throw new SandboxError(`the sandbox could not be destroyed: ${(err as Error).message}`.slice(0, 300));
    }
    try {
      await this.keeper?.forget(roomId, await this.id(roomId));
    } catch (err) {
      throw new SandboxError(`the workspace's saved copy could not be deleted: ${(err as Error).message}`.slice(0, 300));
    }
  }
}

/**
 * Kills a streamed command. A stop can come before the container has answered
 * the stream request, and so before the process exists there: the kill waits
 * for that answer (a command the container refused has nothing to kill).
 */
async function killRun(sandbox: RoomSandbox, command: string, opened: Promise<ReadableStream<Uint8Array>>): Promise<void> {
  const kill = async () => {
    let stream: ReadableStream<Uint8Array>;
    try {
      stream = await opened;
    } catch {
      return;
    }
    // Nothing reads it any more; hanging up does not stop the process.
    await stream.cancel().catch(() => undefined);
    const running = (await sandbox.listProcesses()).find((p) => p.command === command && p.status === "running");
    if (running) await sandbox.killProcess(running.id);
  };
  let timer: ReturnType<typeof setTimeout> | undefined;
  const gaveUp = new Promise<void>((resolve) => (timer = setTimeout(resolve, KILL_WAIT_MS)));
  try {
    await Promise.race([kill(), gaveUp]);
  } catch (error) {
    // The turn still ends: the command was stopped for it, whatever the container says.
    console.error(`[sandbox] could not kill a stopped command: ${(error as Error).message}`);
  } finally {
    clearTimeout(timer);
  }
}

/** `work`, or the signal's reason as soon as it is aborted. */
function untilEnded<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    if (signal.aborted) onAbort();
    signal.addEventListener("abort", onAbort, { once: true });
    work.then(resolve, reject).finally(() => signal.removeEventListener("abort", onAbort));
  });
}

/** One output stream, kept up to KEPT_UNITS. */
class Kept {
  text = "";
  cut = false;

  add(data: string | undefined): void {
    if (!data) return;
    const room = KEPT_UNITS - this.text.length;
    if (data.length > room) this.cut = true;
    if (room > 0) this.text += data.slice(0, room);
  }
}
