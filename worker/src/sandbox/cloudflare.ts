import { getSandbox } from "@cloudflare/sandbox";
import { containerId } from "./container-id.ts";
import { SandboxError, type RawExecResult, type SandboxExecutor } from "./types.ts";

/** Production: one @cloudflare/sandbox container per room, its id from containerId(). */
export class CloudflareExecutor implements SandboxExecutor {
  /** Each room's id, digested once (a DuetAgent is one room, so this holds one entry). */
  private readonly ids = new Map<string, Promise<string>>();

  constructor(private readonly ns: DurableObjectNamespace) {}

  private async sandbox(roomId: string) {
    let id = this.ids.get(roomId);
    if (!id) this.ids.set(roomId, (id = containerId(roomId)));
    // The namespace is typed loosely in Env so local builds need no Sandbox class.
    return getSandbox(this.ns as never, await id);
  }

  /**
   * A stop ends the wait at once, but the SDK (0.12) cannot kill a foreground
   * command, so a stopped command runs on in the container until it ends or
   * times out. The signal is not handed to the SDK: its exec goes over RPC to
   * the Sandbox Durable Object, and an AbortSignal cannot be serialised.
   */
  async exec(roomId: string, cmd: string, timeoutMs: number, stop?: AbortSignal): Promise<RawExecResult> {
    const started = Date.now();
    try {
      const sandbox = await this.sandbox(roomId);
      const r = await untilStopped(sandbox.exec(cmd, { timeout: timeoutMs }), stop);
      return { exitCode: r.exitCode, stdout: r.stdout, stderr: r.stderr, durationMs: r.duration ?? Date.now() - started, truncated: false };
    } catch (err) {
      if (stop?.aborted) throw stop.reason;
      throw new SandboxError(`the sandbox failed: ${(err as Error).message}`.slice(0, 300));
    }
  }

  async destroy(roomId: string): Promise<void> {
    try {
      await (await this.sandbox(roomId)).destroy();
    } catch (err) {
      throw new SandboxError(`the sandbox could not be destroyed: ${(err as Error).message}`.slice(0, 300));
    }
  }
}

function untilStopped<T>(work: Promise<T>, stop?: AbortSignal): Promise<T> {
  if (!stop) return work;
  return new Promise<T>((resolve, reject) => {
    const onStop = () => reject(stop.reason);
    if (stop.aborted) onStop();
    stop.addEventListener("abort", onStop, { once: true });
    work.then(resolve, reject).finally(() => stop.removeEventListener("abort", onStop));
  });
}
