/** What a sandbox reports for one command, before Duet caps and redacts it. */
export interface RawExecResult {
  exitCode: number;
  stdout: string;
  stderr: string;
  durationMs: number;
  truncated: boolean;
}

/** What a checkout of the room's repository needs: the tokenless URL (`origin`), the branch (null: the default), a read token, `owner/name`. */
export interface CheckoutAsk {
  url: string;
  branch: string | null;
  token: string;
  repo: string;
}

/** A checkout made at `repo/`: HEAD's sha, the branch, whether it was cloned now, and a note when an existing one was left as it was. */
export interface CheckoutDone {
  sha: string;
  branch: string;
  cloned: boolean;
  note?: string;
}

/** What pushing the checkout's change needs: where, a write token, the `duet/…` branch, the base commit, the parent, the message and author. */
export interface PushAsk {
  url: string;
  token: string;
  repo: string;
  branch: string;
  baseSha: string;
  parent: string;
  message: string;
  author: { name: string; email: string };
  /** The commit's date (Unix seconds), fixed per proposal so pushing it again makes the same commit. */
  date: number;
}

/** A room's sandbox: run a command, destroy it. (Waking it ahead of time is WarmTracker's.) */
export interface SandboxExecutor {
  /**
   * `signal` stops the command (the room's turn was stopped): the call rejects with the signal's reason.
   * `traceparent`: the command's span, sent on to an executor that reads it.
   * `person`: who the command runs for, where an executor shared between rooms shares its slots by person.
   */
  exec(roomId: string, cmd: string, timeoutMs: number, signal?: AbortSignal, traceparent?: string, person?: string): Promise<RawExecResult>;
  /** Destroys the sandbox and whatever copy of its workspace is kept. */
  destroy(roomId: string): Promise<void>;
  /**
   * Only where the sandbox's disk does not outlive it (production containers):
   * keeps the workspace as it is now, so the room's next container starts
   * with it. `written`: files were written into it from outside a command.
   * Throws a SandboxError a person can read when it could not.
   */
  save?(roomId: string, written?: boolean): Promise<void>;
  /**
   * Puts the room's repository at `repo/` in its workspace (or fetches into
   * the one there) without the token ever entering the sandbox. Absent where
   * the provider cannot. Throws a DuetError whose message is one line.
   */
  checkout?(roomId: string, ask: CheckoutAsk, signal?: AbortSignal): Promise<CheckoutDone>;
  /** Commits the change in `repo/` and pushes it to a `duet/…` branch, the token kept out of the sandbox as for the checkout. */
  push?(roomId: string, ask: PushAsk): Promise<{ sha: string }>;
}

/** A sandbox that is missing, unreachable or answered nonsense; its message is shown to the person. */
export class SandboxError extends Error {}
