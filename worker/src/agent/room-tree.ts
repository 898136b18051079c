import { parentRoomId } from "@duet/shared";

/** Child rooms cleaned at once: a workspace room may hold thousands, and each clean-up waits on a sandbox. */
export const CHILD_CLEANUPS_AT_ONCE = 6;

/** The RPC a room's parent answers when a room registers under it. */
export interface ParentRoom {
  registerChild(child: string): Promise<void>;
}

type Row = Record<string, SqlStorageValue>;

const REGISTERED = "registered_with_parent";

/**
 * Where a room sits in the room tree (workspace > channel > thread), so that
 * deleting a room deletes every room under it. A room tells its parent about
 * itself once (one row here, one there); the parent then registers itself
 * with its own parent, so a channel used only through thread rooms is still
 * found when its workspace goes.
 */
export class RoomTree {
  /** Cached once read: the common case, an already registered room, then costs no query per turn. */
  private registered: boolean | null = null;

  constructor(
    private readonly storage: DurableObjectStorage,
    private readonly roomId: string,
    private readonly parent: (roomId: string) => ParentRoom,
  ) {
    // WITHOUT ROWID: the key is the row, so an insert writes one row, not a row and an index entry.
    storage.sql.exec(`CREATE TABLE IF NOT EXISTS duet_children (room_id TEXT PRIMARY KEY) WITHOUT ROWID`);
    storage.sql.exec(`CREATE TABLE IF NOT EXISTS duet_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID`);
  }

  private get sql() {
    return this.storage.sql;
  }

  /** Registers this room with its parent unless it already has (a top-level room has none). */
  async ensureRegistered(): Promise<void> {
    if (this.registered) return;
    const parent = parentRoomId(this.roomId);
    if (!parent) return;
    this.registered ??= this.sql.exec<Row>(`SELECT 1 FROM duet_meta WHERE key = ?`, REGISTERED).toArray().length > 0;
    if (this.registered) return;
    await this.parent(parent).registerChild(this.roomId);
    this.sql.exec(`INSERT OR REPLACE INTO duet_meta (key, value) VALUES (?, ?)`, REGISTERED, parent).toArray();
    this.registered = true;
  }

  /** A room under this one announced itself. */
  async addChild(child: string): Promise<void> {
    this.sql.exec(`INSERT OR IGNORE INTO duet_children (room_id) VALUES (?)`, child).toArray();
    await this.ensureRegistered();
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
    this.sql.exec(`DELETE FROM duet_meta WHERE key = ?`, REGISTERED).toArray();
    this.registered = false;
  }
}

/** Runs `cleanOne` over `children`, at most CHILD_CLEANUPS_AT_ONCE at a time; says which failed and why. */
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
