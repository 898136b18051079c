import { workspaceOfRoom } from "@duet/shared";

/**
 * Who runs next on the executor, shared fairly between rooms and their workspaces.
 *
 *   - One command per room at a time; a room's further commands wait in its own
 *     line, in order (they share one workspace and one shell state anyway). So a
 *     room's crowd of commands holds one slot, never all.
 *   - At most `perPerson` commands for one person (the one who asked, as the Worker
 *     names them), half of `total` by default: however many rooms a person opens,
 *     their commands hold half the executor and never the rest, so another person's
 *     room starts at once, in their workspace or any other. Commands that name no
 *     person share one such share per workspace.
 *   - At most `perWorkspace` commands per workspace (`<platform>-<workspace>`, one
 *     Slack team, Discord server or CLI workspace), all but a quarter of `total`
 *     by default: a crowd in one workspace leaves slots for the others.
 *   - At most `total` commands at once (SANDBOX_MAX_CONCURRENT).
 *   - When a slot frees, the waiting rooms take turns: the first waiting room (in
 *     turn order) of the workspace with the fewest commands running goes (then the
 *     person with the fewest), and a room that still has commands waiting goes to
 *     the back of the turn order.
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
  /** Commands running at once for one person, over all their rooms. */
  perPerson: number;
}

/** The default shares of `total` slots: half for a person, all but a quarter for a workspace (each at least one). */
export function gateLimitsOf(total: number): GateLimits {
  const perWorkspace = Math.max(1, total - Math.max(1, Math.floor(total / 4)));
  return { total, perWorkspace, perPerson: Math.min(perWorkspace, Math.max(1, Math.ceil(total / 2))) };
}

interface Waiter {
  workspace: string;
  person: string;
  start: () => void;
}

/** Who a command runs for: the person named, else everyone unnamed in the room's workspace. */
const personKey = (workspace: string, person: string | undefined) => (person ? `p:${person}` : `w:${workspace}`);

export class Gate {
  private running = 0;
  private waitingCount = 0;
  private readonly busyRooms = new Set<string>();
  private readonly byWorkspace = new Map<string, number>();
  private readonly byPerson = new Map<string, number>();
  /** Rooms with commands waiting, in turn order (a Map keeps insertion order), each with its line. */
  private readonly lines = new Map<string, Waiter[]>();

  constructor(
    private readonly limits: GateLimits,
    private readonly maxWaiting: number,
  ) {}

  /**
   * Resolves with a release function once `room` (a session id, `sandbox-<roomId>`) may run a command for
   * `person`. `signal` (the caller hung up) takes a waiting command out of the line.
   */
  async enter(room: string, opts: { person?: string; signal?: AbortSignal } = {}): Promise<() => void> {
    const { signal } = opts;
    signal?.throwIfAborted();
    const workspace = workspaceOfRoom(room.replace(/^sandbox-/, ""));
    const person = personKey(workspace, opts.person);
    if (!this.lines.has(room) && this.mayStart(room, workspace, person)) {
      this.take(room, workspace, person);
      return this.releaser(room, workspace, person);
    }
    if (this.waitingCount >= this.maxWaiting) {
      throw new BusyError(`executor busy: ${this.running} commands running and ${this.waitingCount} waiting`);
    }
    await new Promise<void>((resolve, reject) => {
      const waiter: Waiter = { workspace, person, start: resolve };
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
    return this.releaser(room, workspace, person);
  }

  get stats(): { running: number; waiting: number } {
    return { running: this.running, waiting: this.waitingCount };
  }

  private mayStart(room: string, workspace: string, person: string): boolean {
    return (
      this.running < this.limits.total &&
      !this.busyRooms.has(room) &&
      (this.byWorkspace.get(workspace) ?? 0) < this.limits.perWorkspace &&
      (this.byPerson.get(person) ?? 0) < this.limits.perPerson
    );
  }

  private take(room: string, workspace: string, person: string): void {
    this.running++;
    this.busyRooms.add(room);
    bump(this.byWorkspace, workspace, 1);
    bump(this.byPerson, person, 1);
  }

  private releaser(room: string, workspace: string, person: string): () => void {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.running--;
      this.busyRooms.delete(room);
      bump(this.byWorkspace, workspace, -1);
      bump(this.byPerson, person, -1);
      this.dispatch();
    };
  }

  /** Starts waiting commands while there are slots and a room that may use one. */
  private dispatch(): void {
    while (this.running < this.limits.total) {
      let next: string | undefined;
      let fewest = Infinity;
      for (const [room, line] of this.lines) {
        const { workspace, person } = line[0];
        // Workspace load first, person load to break ties (a person holds at most `total` slots).
        const load = (this.byWorkspace.get(workspace) ?? 0) * (this.limits.total + 1) + (this.byPerson.get(person) ?? 0);
        if (load < fewest && this.mayStart(room, workspace, person)) {
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
      this.take(next, waiter.workspace, waiter.person);
      waiter.start();
    }
  }
}

/** Adds `by` to a count, dropping it at zero. */
function bump(counts: Map<string, number>, key: string, by: number): void {
  const n = (counts.get(key) ?? 0) + by;
  if (n > 0) counts.set(key, n);
  else counts.delete(key);
}
