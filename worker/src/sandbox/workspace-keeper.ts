import { shellQuote } from "@duet/shared";
import { READY_FILE, restoreWorkspace, saveWorkspace, savedKey, UNCHANGED_TEST, WorkspaceKeepError, type ArchiveBox, type SaveResult } from "./workspace-archive.ts";
import { SandboxError } from "./types.ts";

/** Exit status of a command that found its container not yet restored (it ran nothing). */
const NOT_READY_EXIT = 86;

/** A command behind the keeper's checks (see WorkspaceKeeper.guard). */
export interface Guarded {
  command: string;
  /** The command found its container not restored, and ran nothing. */
  notReady(exitCode: number, stderr: string): boolean;
  /** The command's stderr without the keeper's line; whether the workspace still matches its saved copy is noted. */
  finish(stderr: string): string;
}

/**
 * The Worker's side of keeping a room's workspace (workspace-archive.ts):
 * before anything reads or runs in a container, its workspace is restored if
 * the container is a new one. A container is checked once per instance with a
 * request of its own; after that each command checks for itself (`guard`),
 * at no extra request, since the container may sleep between two commands
 * without the Worker hearing of it. Each command also says, as it ends,
 * whether the workspace still matches its saved copy, so a turn whose
 * commands changed nothing costs no request to save.
 */
export class WorkspaceKeeper {
  /** Rooms whose container this instance has seen ready. */
  private readonly checked = new Set<string>();
  /** Rooms whose workspace matches its saved copy, as far as this instance knows. */
  private readonly clean = new Set<string>();
  /** A restore under way per room: callers at the same time share it. */
  private readonly restoring = new Map<string, Promise<void>>();

  constructor(private readonly bucket: R2Bucket, private readonly maxBytes: number) {}

  /** Restores the room's workspace unless this instance already saw its container ready. */
  async ensure(roomId: string, containerId: string, box: ArchiveBox): Promise<void> {
    if (this.checked.has(roomId)) return;
    const ready = await box.exec(`test -e ${READY_FILE}`);
    if (ready.exitCode === 0) this.checked.add(roomId);
    else await this.restore(roomId, containerId, box);
  }

  /**
   * `inner` (the command, run by `wrap`) behind a check that the container is
   * ready, which ends it at once when it is not, and followed by a line on
   * stderr when the workspace still matches its saved copy. Both lines carry a
   * token made here, so no command can forge them; a command whose output was
   * cut short loses the second line, and counts as a change.
   */
  guard(roomId: string, inner: string, wrap: (inner: string) => string): Guarded {
    const notReadyLine = `duet-not-restored-${crypto.randomUUID()}`;
    const unchangedLine = `duet-unchanged-${crypto.randomUUID()}\n`;
    const checked = `[ -e ${READY_FILE} ] || { printf '%s\\n' ${shellQuote(notReadyLine)} >&2; exit ${NOT_READY_EXIT}; }\n${inner}`;
    // `(exit $s)` last, so the command's status stays the process's.
    const after = `duet_s=$?; if ${UNCHANGED_TEST}; then printf %s ${shellQuote(unchangedLine)} >&2; fi; (exit $duet_s)`;
    this.clean.delete(roomId);
    return {
      command: `${wrap(checked)}\n${after}`,
      notReady: (exitCode, stderr) => exitCode === NOT_READY_EXIT && stderr.includes(notReadyLine),
      finish: (stderr) => {
        if (!stderr.endsWith(unchangedLine)) return stderr;
        this.clean.add(roomId);
        return stderr.slice(0, -unchangedLine.length);
      },
    };
  }

  /** Fills the room's new container from its saved copy; a failure is a SandboxError a person can read. */
  restore(roomId: string, containerId: string, box: ArchiveBox): Promise<void> {
    this.checked.delete(roomId);
    let running = this.restoring.get(roomId);
    if (!running) {
      running = restoreWorkspace(box, this.bucket, savedKey(containerId))
        .then(() => {
          this.checked.add(roomId);
          this.clean.add(roomId);
        })
        .catch((err: unknown) => {
          throw new SandboxError(err instanceof WorkspaceKeepError ? err.message : `the workspace could not be restored: ${(err as Error).message}`.slice(0, 300));
        })
        .finally(() => this.restoring.delete(roomId));
      this.restoring.set(roomId, running);
    }
    return running;
  }

  /**
   * Saves the room's workspace unless its commands since the last save all
   * said it had not changed. `written`: files were written from outside a
   * command, so it may have changed whatever the commands said.
   */
  async save(roomId: string, containerId: string, box: ArchiveBox, written = false): Promise<SaveResult> {
    if (written) this.clean.delete(roomId);
    if (this.clean.has(roomId)) return { kind: "unchanged" };
    try {
      const saved = await saveWorkspace(box, this.bucket, savedKey(containerId), this.maxBytes);
      if (saved.kind !== "unrestored") this.clean.add(roomId);
      return saved;
    } catch (err) {
      throw new SandboxError(err instanceof WorkspaceKeepError ? err.message : `the workspace could not be saved: ${(err as Error).message}`.slice(0, 300));
    }
  }

  /** The room was deleted: its saved copy goes, and its next container starts empty. */
  async forget(roomId: string, containerId: string): Promise<void> {
    this.checked.delete(roomId);
    this.clean.delete(roomId);
    await this.bucket.delete(savedKey(containerId));
  }
}
