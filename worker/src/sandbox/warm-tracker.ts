import type { CheckoutAsk, CheckoutDone, PushAsk, RawExecResult, SandboxExecutor } from "./types.ts";

/** A sandbox used within this window is assumed awake (Cloudflare's sleepAfter defaults to 10 minutes). */
export const SANDBOX_WARM_FOR_MS = 5 * 60_000;
/** How long the wake-up command may take: a cold container start, with room to spare. */
const WARM_TIMEOUT_MS = 10_000;

/**
 * Wakes the room's sandbox ahead of its first command (called while the model
 * thinks, so a cold start overlaps inference) by running `true` in it, and
 * remembers when the sandbox was last used, so this only costs a round trip when
 * it may really be cold. One per room: each DuetAgent wraps its own executor.
 */
export class WarmTracker implements SandboxExecutor {
  private touchedAt = Number.NEGATIVE_INFINITY;

  constructor(private readonly inner: SandboxExecutor, private readonly warmForMs = SANDBOX_WARM_FOR_MS, private readonly now = Date.now) {}

  exec(roomId: string, cmd: string, timeoutMs: number, signal?: AbortSignal, traceparent?: string, person?: string): Promise<RawExecResult> {
    this.touchedAt = this.now();
    return this.inner.exec(roomId, cmd, timeoutMs, signal, traceparent, person);
  }

  /** Never throws: warming is an optimisation, and the real command reports any failure. */
  async warm(roomId: string): Promise<void> {
    const now = this.now();
    if (now - this.touchedAt < this.warmForMs) return;
    this.touchedAt = now;
    await this.inner.exec(roomId, "true", WARM_TIMEOUT_MS).catch(() => undefined);
  }

  destroy(roomId: string): Promise<void> {
    this.touchedAt = Number.NEGATIVE_INFINITY;
    return this.inner.destroy(roomId);
  }

  /** The inner executor's checkout, where it has one (see SandboxExecutor.checkout). */
  get checkout(): ((roomId: string, ask: CheckoutAsk, signal?: AbortSignal) => Promise<CheckoutDone>) | undefined {
    const inner = this.inner;
    if (!inner.checkout) return undefined;
    return (roomId, ask, signal) => {
      this.touchedAt = this.now();
      return inner.checkout!(roomId, ask, signal);
    };
  }

  /** The inner executor's push, where it has one (see SandboxExecutor.push). */
  get push(): ((roomId: string, ask: PushAsk) => Promise<{ sha: string }>) | undefined {
    const inner = this.inner;
    if (!inner.push) return undefined;
    return (roomId, ask) => {
      this.touchedAt = this.now();
      return inner.push!(roomId, ask);
    };
  }

  /** The inner executor's, where it keeps workspaces itself (see SandboxExecutor.save). */
  get save(): ((roomId: string, written?: boolean) => Promise<void>) | undefined {
    const inner = this.inner;
    return inner.save && ((roomId, written) => inner.save!(roomId, written));
  }
}
