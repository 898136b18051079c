import { DurableObject } from "cloudflare:workers";

/**
 * One platform's feed of rooms holding answers no bot has confirmed (named by
 * the platform: `slack`, `discord`). A room lists itself only when an answer
 * stayed undelivered past the grace time, and takes itself off when the last
 * one is confirmed, so a turn delivered live writes nothing here. Bots read it
 * at start-up and then keep a read open (a long poll) while they run.
 */
export class DeliveryFeed extends DurableObject {
  /** Reads waiting for a room to be listed. */
  private readonly waiters = new Set<() => void>();

  constructor(ctx: DurableObjectState, env: object) {
    super(ctx, env);
    ctx.storage.sql.exec(`CREATE TABLE IF NOT EXISTS waiting (room_id TEXT PRIMARY KEY, since INTEGER NOT NULL)`);
  }

  /** A room has answers waiting; listing it again changes nothing (no row written). */
  async announce(roomId: string): Promise<void> {
    this.ctx.storage.sql.exec(`INSERT OR IGNORE INTO waiting (room_id, since) VALUES (?, ?)`, roomId, Date.now());
    for (const wake of this.waiters) wake();
  }

  /** The room's answers are all delivered (or the room is gone). */
  async settle(roomId: string): Promise<void> {
    this.ctx.storage.sql.exec(`DELETE FROM waiting WHERE room_id = ?`, roomId);
  }

  /** The listed rooms, oldest first; when there are none, waits up to `waitMs` for one to be listed. */
  async rooms(waitMs: number, limit: number): Promise<string[]> {
    const list = () =>
      this.ctx.storage.sql
        .exec<{ room_id: string }>(`SELECT room_id FROM waiting ORDER BY since LIMIT ?`, limit)
        .toArray()
        .map((r) => String(r.room_id));
    const now = list();
    if (now.length || waitMs <= 0) return now;
    await new Promise<void>((resolve) => {
      const wake = () => {
        clearTimeout(timer);
        this.waiters.delete(wake);
        resolve();
      };
      const timer = setTimeout(wake, waitMs);
      this.waiters.add(wake);
    });
    return list();
  }
}
