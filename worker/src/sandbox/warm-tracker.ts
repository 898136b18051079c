import type { RawExecResult, SandboxExecutor } from "./executor.ts";

/** A sandbox used within this window is assumed awake (Cloudflare's sleepAfter defaults to 10 minutes). */
export const SANDBOX_WARM_FOR_MS = 5 * 60_000;

/**
 * Remembers when the room's sandbox was last used, so `warm` (called while the
 * model thinks) only costs a round trip when the sandbox may really be cold.
 * One per room: each DuetAgent wraps its own executor.
 */
export class WarmTracker implements SandboxExecutor {
  private touchedAt = Number.NEGATIVE_INFINITY;

  constructor(private readonly inner: SandboxExecutor, private readonly warmForMs = SANDBOX_WARM_FOR_MS, private readonly now = Date.now) {}

  exec(roomId: string, cmd: string, timeoutMs: number): Promise<RawExecResult> {
    this.touchedAt = this.now();
    return this.inner.exec(roomId, cmd, timeoutMs);
  }

  async warm(roomId: string): Promise<void> {
    const now = this.now();
    if (now - this.touchedAt < this.warmForMs) return;
    this.touchedAt = now;
    await this.inner.warm(roomId);
  }

  destroy(roomId: string): Promise<void> {
    this.touchedAt = Number.NEGATIVE_INFINITY;
    return this.inner.destroy(roomId);
  }
}
