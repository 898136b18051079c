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
  /** Destroys the sandbox and whatever copy of its workspace is kept. */
  destroy(roomId: string): Promise<void>;
  /**
   * Only where the sandbox's disk does not outlive it (production containers):
   * keeps the workspace as it is now, so the room's next container starts
   * with it. `written`: files were written into it from outside a command.
   * Throws a SandboxError a person can read when it could not.
   */
  save?(roomId: string, written?: boolean): Promise<void>;
}

/** A sandbox that is missing, unreachable or answered nonsense; its message is shown to the person. */
export class SandboxError extends Error {}
