import { DurableObject } from "cloudflare:workers";

/** The one object's name. */
export const PULL_ROOMS_NAME = "github";

/** Deliveries remembered against replays: GitHub redelivers by hand, within days; the oldest past this count are forgotten. */
export const DELIVERIES_KEPT = 5_000;

/** What a webhook delivery is for: the room that opened its pull request, and whether this delivery was acted on before. */
export interface PullRoute {
  roomId: string | null;
  replay: boolean;
}

/**
 * One object (named `github`) for the Worker: which room opened each pull
 * request Duet opened (written when one is opened, read by the webhook), and
 * the webhook deliveries already acted on (so a redelivery does nothing
 * twice), bounded to the newest DELIVERIES_KEPT. Storage calls run one at a
 * time and `route` has no await between its read and its write, so two
 * copies of one delivery arriving at once are one route and one replay.
 */
export class PullRooms extends DurableObject<object> {
  constructor(ctx: DurableObjectState, env: object) {
    super(ctx, env);
    ctx.storage.sql.exec(`CREATE TABLE IF NOT EXISTS pull (repo TEXT NOT NULL, number INTEGER NOT NULL, room_id TEXT NOT NULL, at INTEGER NOT NULL, PRIMARY KEY (repo, number))`);
    ctx.storage.sql.exec(`CREATE TABLE IF NOT EXISTS delivery (id TEXT PRIMARY KEY, at INTEGER NOT NULL)`);
  }

  /** The room that opened `repo`#`number` (`owner/name`, compared without case as GitHub does); opening it again is the same row. */
  async remember(repo: string, number: number, roomId: string): Promise<void> {
    this.ctx.storage.sql.exec(
      `INSERT INTO pull (repo, number, room_id, at) VALUES (?, ?, ?, ?) ON CONFLICT(repo, number) DO UPDATE SET room_id = excluded.room_id, at = excluded.at`,
      repo.toLowerCase(),
      number,
      roomId,
      Date.now(),
    );
  }

  /**
   * The room of `repo`#`number` for delivery `deliveryId`. A pull request no
   * room opened records nothing; one that a room opened records the delivery,
   * and the same delivery again is a replay.
   */
  async route(deliveryId: string, repo: string, number: number): Promise<PullRoute> {
    const sql = this.ctx.storage.sql;
    const row = sql.exec<{ room_id: string }>(`SELECT room_id FROM pull WHERE repo = ? AND number = ?`, repo.toLowerCase(), number).toArray()[0];
    if (!row) return { roomId: null, replay: false };
    if (sql.exec(`SELECT 1 FROM delivery WHERE id = ?`, deliveryId).toArray().length) return { roomId: String(row.room_id), replay: true };
    sql.exec(`INSERT INTO delivery (id, at) VALUES (?, ?)`, deliveryId, Date.now());
    sql.exec(`DELETE FROM delivery WHERE id NOT IN (SELECT id FROM delivery ORDER BY at DESC, id LIMIT ?)`, DELIVERIES_KEPT);
    return { roomId: String(row.room_id), replay: false };
  }

  /** A delivery whose room could not take it is forgotten, so GitHub's redelivery of it is acted on. */
  async release(deliveryId: string): Promise<void> {
    this.ctx.storage.sql.exec(`DELETE FROM delivery WHERE id = ?`, deliveryId);
  }
}
