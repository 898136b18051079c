import { workspaceOfRoom } from "@duet/shared";

/**
 * Who runs next on the executor, shared fairly between rooms and their workspaces.
 *
 *   - One command per room at a time; a room's further commands wait in its own
 *     line, in order (they share one workspace and one shell state anyway). So a
 *     room's crowd of commands holds one slot, never all.
 *   - At most `perWorkspace` commands per workspace (`<platform>-<workspace>`, one
 *     Slack team, Discord server or CLI workspace), half of `total` by default: one
 *     person, whose rooms are all in the workspace they asked from, can hold half
 *     the executor and never the rest, so a room in any other workspace starts at
 *     once unless two whole workspaces are full.
 *   - At most `total` commands at once (SANDBOX_MAX_CONCURRENT).
 *   - When a slot frees, the waiting rooms take turns: the first waiting room (in
 *     turn order) of the workspace with the fewest commands running goes, and a room
 *     that still has commands waiting goes to the back of the turn order.
 *
 * A bounded line: past `maxWaiting` waiting commands the executor answers 503 rather
 * than piling up work it will finish long after the Worker has given up.
 */
export class BusyError extends Error {}

export interface GateLimits {
  /** Commands running at once, over all rooms. */
  total: number;
  /** Commands running at once in one workspace's rooms. */
  perWorkspace: number;
}

/** Half the slots per workspace (at least one): no single workspace can hold the other half. */
export const perWorkspaceOf = (total: number) => Math.max(1, Math.ceil(total / 2));

interface Waiter {
  workspace: string;
  start: () => void;
}

export class Gate {
  private running = 0;
  private waitingCount = 0;
  private readonly busyRooms = new Set<string>();
  private readonly byWorkspace = new Map<string, number>();
  /** Rooms with commands waiting, in turn order (a Map keeps insertion order), each with its line. */
  private readonly lines = new Map<string, Waiter[]>();

  constructor(
    private readonly limits: GateLimits,
    private readonly maxWaiting: number,
  ) {}

  /**
   * Resolves with a release function once `room` (a session id, `sandbox-<roomId>`) may run a command. `signal`
   * (the caller hung up) takes a waiting command out of the line.
   */
  async enter(room: string, signal?: AbortSignal): Promise<() => void> {
    signal?.throwIfAborted();
    const workspace = workspaceOfRoom(room.replace(/^sandbox-/, ""));
    if (!this.lines.has(room) && this.mayStart(room, workspace)) {
      this.take(room, workspace);
      return this.releaser(room, workspace);
    }
    if (this.waitingCount >= this.maxWaiting) {
      throw new BusyError(`executor busy: ${this.running} commands running and ${this.waitingCount} waiting`);
    }
    await new Promise<void>((resolve, reject) => {
      const waiter: Waiter = { workspace, start: resolve };
      const line = this.lines.get(room) ?? [];
      line.push(waiter);
      this.lines.set(room, line);
      this.waitingCount++;
      if (!signal) return;
      const onAbort = () => {
        const at = line.indexOf(waiter);
        if (at < 0) return; // started meanwhile: the caller's own abort handling stops it
        line.splice(at, 1);
        if (line.length === 0 && this.lines.get(room) === line) this.lines.delete(room);
        this.waitingCount--;
        reject(signal.reason);
      };
      signal.addEventListener("abort", onAbort, { once: true });
      waiter.start = () => {
        signal.removeEventListener("abort", onAbort);
        resolve();
      };
    });
    return this.releaser(room, workspace);
  }

  get stats(): { running: number; waiting: number } {
    return { running: this.running, waiting: this.waitingCount };
  }

  private mayStart(room: string, workspace: string): boolean {
    return this.running < this.limits.total && !this.busyRooms.has(room) && (this.byWorkspace.get(workspace) ?? 0) < this.limits.perWorkspace;
  }

  private take(room: string, workspace: string): void {
    this.running++;
    this.busyRooms.add(room);
    this.byWorkspace.set(workspace, (this.byWorkspace.get(workspace) ?? 0) + 1);
  }

  private releaser(room: string, workspace: string): () => void {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.running--;
      this.busyRooms.delete(room);
      const left = (this.byWorkspace.get(workspace) ?? 1) - 1;
      if (left > 0) this.byWorkspace.set(workspace, left);
      else this.byWorkspace.delete(workspace);
      this.dispatch();
    };
  }

  /** Starts waiting commands while there are slots and a room that may use one. */
  private dispatch(): void {
    while (this.running < this.limits.total) {
      let next: string | undefined;
      let fewest = Infinity;
      for (const [room, line] of this.lines) {
        const load = this.byWorkspace.get(line[0].workspace) ?? 0;
        if (load < fewest && this.mayStart(room, line[0].workspace)) {
          next = room;
          fewest = load;
        }
      }
      if (next === undefined) return;
      const line = this.lines.get(next)!;
      const waiter = line.shift()!;
      // Its turn is used: the room's next command queues behind the other rooms.
      this.lines.delete(next);
      if (line.length > 0) this.lines.set(next, line);
      this.waitingCount--;
      this.take(next, waiter.workspace);
      waiter.start();
    }
  }
}
