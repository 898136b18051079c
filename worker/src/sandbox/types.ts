/** What a sandbox reports for one command, before Duet caps and redacts it. */
export interface RawExecResult {
  exitCode: number;
  stdout: string;
  stderr: string;
  durationMs: number;
  truncated: boolean;
}

/** A room's sandbox: run a command, destroy it. (Waking it ahead of time is WarmTracker's.) */
export interface SandboxExecutor {
  /** `signal` stops the command (the room's turn was stopped): the call rejects with the signal's reason. */
  exec(roomId: string, cmd: string, timeoutMs: number, signal?: AbortSignal): Promise<RawExecResult>;
  destroy(roomId: string): Promise<void>;
}

/** A sandbox that is missing, unreachable or answered nonsense; its message is shown to the person. */
export class SandboxError extends Error {}
