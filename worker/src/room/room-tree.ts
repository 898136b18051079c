import { parentRoomId, type RoomSummary, type RunPolicy } from "@duet/shared";
import type { RepoLink } from "../control/room-repo.ts";
import type { UsageEntry } from "../usage/usage-entries.ts";

/** Child rooms cleaned at once: a workspace room may hold thousands, and each clean-up waits on a sandbox. */
export const CHILD_CLEANUPS_AT_ONCE = 6;

/** What a room's parent hands down: the run policy, the model and the repository set on it (null when it set none). */
export interface Inherited {
  runPolicy: RunPolicy | null;
  model?: string | null;
  repo?: RepoLink | null;
}

/** The RPC a room's parent answers when a room registers under it: what the child inherits. */
export interface ParentRoom {
  registerChild(child: string): Promise<Inherited>;
}

/** The RPCs one room makes to another (its parent, its children): a narrow view of the room's stub. */
export interface RoomPeer extends ParentRoom {
  /** Empties the room (see Room.clean); answers its Outcome, whose body lists any `errors`. */
  cleanup(resetBy?: string, keepMemory?: boolean): Promise<{ status: number; body: unknown }>;
  inheritPolicy(inherited: Inherited): Promise<void>;
  /** The room's settings and what `userId` used there today (a channel room's, listed by its workspace room). */
  roomSummary(userId: string): Promise<RoomSummary>;
  /** The room's own model usage entries (a thread room's, added up by its channel). */
  usageEntries(): Promise<UsageEntry[]>;
}

type Row = Record<string, SqlStorageValue>;

/** The meta row saying this room is registered with its parent; its value is what the parent handed down (JSON Inherited). */
const LINK = "parent_link";
/** The row rooms registered before their parent handed anything down still have: such a room registers again, once. */
const OLD_REGISTERED = "registered_with_parent";

/**
 * Where a room sits in the room tree (workspace > channel > thread), so that
 * deleting a room deletes every room under it, and what it inherits from its
 * parent. A room tells its parent about itself once (one row here, one
 * there) and keeps what the parent answered in that same row; the parent
 * then registers itself with its own parent, so a channel used only through
 * thread rooms is still found when its workspace goes. A parent whose policy
 * changes tells the children that inherit it (one row written in each), so a
 * turn never asks its parent.
 */
export class RoomTree {
  /** Cached once read: the common case, an already registered room, then costs no query per turn. Null: not registered. */
  private link: Inherited | null | undefined;
  private registering: Promise<void> | null = null;
  /** Counts what parents pushed, so a registration answered after a push does not overwrite the newer value. */
  private pushes = 0;
  /** The room this one registers under (null: a workspace room), worked out once: every turn asks. */
  private readonly parentId: string | null;

  constructor(
    private readonly storage: DurableObjectStorage,
    private readonly roomId: string,
    private readonly parent: (roomId: string) => ParentRoom,
  ) {
    this.parentId = parentRoomId(roomId);
    // WITHOUT ROWID: the key is the row, so an insert writes one row, not a row and an index entry.
    storage.sql.exec(`CREATE TABLE IF NOT EXISTS duet_children (room_id TEXT PRIMARY KEY) WITHOUT ROWID`);
    storage.sql.exec(`CREATE TABLE IF NOT EXISTS duet_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID`);
  }

  private get sql() {
    return this.storage.sql;
  }

  /** What the parent handed down, as stored (null: not registered, or nothing stored yet). */
  private stored(): Inherited | null {
    if (this.link === undefined) {
      const row = this.sql.exec<Row>(`SELECT value FROM duet_meta WHERE key = ?`, LINK).toArray()[0];
      this.link = row ? (JSON.parse(String(row.value)) as Inherited) : null;
    }
    return this.link;
  }

  /** The run policy the parent handed down; null when it set none or this room is not registered yet. */
  inheritedPolicy(): RunPolicy | null {
    return this.stored()?.runPolicy ?? null;
  }

  /** The model the parent chose; null when it chose none or this room is not registered yet. */
  inheritedModel(): string | null {
    return this.stored()?.model ?? null;
  }

  /** The repository the parent linked; null when it linked none or this room is not registered yet. */
  inheritedRepo(): RepoLink | null {
    return this.stored()?.repo ?? null;
  }

  /**
   * Registers this room with its parent unless it already has (a top-level
   * room has none), keeping what the parent hands down: one RPC and one row,
   * once. Concurrent callers share the one registration.
   */
  async ensureRegistered(): Promise<void> {
    const parent = this.parentId;
    if (!parent || this.stored()) return;
    this.registering ??= (async () => {
      const pushesBefore = this.pushes;
      const inherited = await this.parent(parent).registerChild(this.roomId);
      // A push that arrived while registering is newer than this answer, and was stored already.
      if (this.pushes === pushesBefore) this.keep(inherited);
    })().finally(() => (this.registering = null));
    await this.registering;
  }

  /** The parent's policy changed (or it answered a registration): one row written. */
  inherit(inherited: Inherited): void {
    this.pushes++;
    this.keep(inherited);
  }

  private keep(inherited: Inherited): void {
    const value: Inherited = { runPolicy: inherited.runPolicy ?? null, model: inherited.model ?? null, repo: inherited.repo ?? null };
    this.sql.exec(`INSERT OR REPLACE INTO duet_meta (key, value) VALUES (?, ?)`, LINK, JSON.stringify(value)).toArray();
    this.link = value;
  }

  /** A room under this one announced itself. */
  async addChild(child: string): Promise<void> {
    this.sql.exec(`INSERT OR IGNORE INTO duet_children (room_id) VALUES (?)`, child).toArray();
    await this.ensureRegistered();
  }

  /**
   * Tells each child that `inherits` what it now inherits, a few at a time;
   * returns the errors of those that could not be told, as `child: error`.
   */
  async tellChildren(inherits: (child: string) => boolean, tell: (child: string) => Promise<void>): Promise<string[]> {
    const failed = await cleanAll(this.children().filter(inherits), async (child) => {
      await tell(child);
      return [];
    });
    return [...failed].flatMap(([child, errors]) => errors.map((e) => `${child}: ${e}`));
  }

  children(): string[] {
    return this.sql.exec<Row>(`SELECT room_id FROM duet_children ORDER BY room_id`).toArray().map((r) => String(r.room_id));
  }

  /**
   * Cleans every child room, a few at a time, and returns the errors of those
   * that failed as `child: error`. A child comes off the list as soon as it is
   * clean, so one that failed (or registered meanwhile) is tried again by the
   * next clean-up. `cleanOne` returns the child's own errors, or throws.
   */
  async cleanChildren(cleanOne: (child: string) => Promise<string[]>): Promise<string[]> {
    const failed = await cleanAll(this.children(), cleanOne, (child) => {
      this.sql.exec(`DELETE FROM duet_children WHERE room_id = ?`, child).toArray();
    });
    return [...failed].flatMap(([child, errors]) => errors.map((e) => `${child}: ${e}`));
  }

  /** After a clean-up this room is new again: its next turn registers it anew. */
  forgetParent(): void {
    this.sql.exec(`DELETE FROM duet_meta WHERE key IN (?, ?)`, LINK, OLD_REGISTERED).toArray();
    this.link = null;
  }
}

/** Runs `cleanOne` over `children` (a clean-up, or any call to each), at most CHILD_CLEANUPS_AT_ONCE at a time; says which failed and why. */
export async function cleanAll(
  children: string[],
  cleanOne: (child: string) => Promise<string[]>,
  onClean: (child: string) => void = () => undefined,
): Promise<Map<string, string[]>> {
  const failed = new Map<string, string[]>();
  let next = 0;
  const worker = async () => {
    while (next < children.length) {
      const child = children[next++];
      try {
        const errors = await cleanOne(child);
        if (errors.length) failed.set(child, errors);
        else onClean(child);
      } catch (err) {
        failed.set(child, [(err as Error).message]);
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(CHILD_CLEANUPS_AT_ONCE, children.length) }, worker));
  return failed;
}
