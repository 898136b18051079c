import { WORKSPACE_NOT_SAVED } from "@duet/shared";

/**
 * When a room's workspace is saved (production: SandboxExecutor.save). Work
 * that changed it (commands, a written file) marks it changed; `flush` saves
 * once for everything marked so far. Saves never overlap: a flush while one
 * runs waits for it and then saves once more, and every flush that arrives
 * meanwhile shares that one save. A save that failed leaves the room marked,
 * so the next flush tries again (and says so again).
 */
export class WorkspaceSaves {
  private changed = false;
  /** Files were written from outside a command since the last save. */
  private written = false;
  private running: Promise<string | null> | null = null;
  private next: Promise<string | null> | null = null;

  constructor(private readonly save: (written: boolean) => Promise<void>) {}

  /** `written`: by a file write from outside a command (the sandbox's own tracking cannot have seen it). */
  markChanged(written = false): void {
    this.changed = true;
    this.written ||= written;
  }

  /** Saves what changed: null when saved (or nothing changed), else the note that says why it was not. */
  flush(): Promise<string | null> {
    if (this.next) return this.next;
    if (this.running) {
      this.next = this.running.then(() => {
        this.next = null;
        return this.start();
      });
      return this.next;
    }
    return this.start();
  }

  /** The room is being deleted: nothing it marked is to be saved, and a save under way is waited for (it must not land after the delete). */
  async forget(): Promise<void> {
    this.changed = this.written = false;
    await (this.next ?? this.running);
  }

  private start(): Promise<string | null> {
    if (!this.changed) return Promise.resolve(null);
    const written = this.written;
    this.changed = this.written = false;
    const run = this.save(written).then(
      () => null,
      (err: unknown) => {
        this.changed = true;
        this.written ||= written;
        return `${WORKSPACE_NOT_SAVED} ${(err as Error).message}`;
      },
    );
    const tracked: Promise<string | null> = run.finally(() => {
      if (this.running === tracked) this.running = null;
    });
    this.running = tracked;
    return run;
  }
}
