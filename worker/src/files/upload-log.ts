import { contentTypeOf } from "@duet/shared";
import { LazyTable } from "../storage/lazy-table.ts";

type Row = Record<string, SqlStorageValue>;

/** A file a person shared into the room's workspace. */
export interface Upload {
  userId?: string;
  name: string;
  path: string;
  bytes: number;
}

/** Uploads kept per room: far more than people share between two questions. */
export const UPLOADS_KEEP = 50;

/**
 * The room's recent uploads, so the next turn's context says who shared what.
 * One row written per upload and none per turn: rows live in UPLOADS_KEEP
 * fixed slots (an upsert reuses the oldest), and a turn reads the uploads that
 * arrived between the previous question and its own, by time, instead of
 * marking them as told. The table is made by the first upload: a room
 * nobody shares a file into writes nothing here.
 */
export class UploadLog {
  private nextSeq: number | null = null;
  private readonly table: LazyTable;

  constructor(
    private readonly storage: DurableObjectStorage,
    private readonly now: () => number = Date.now,
  ) {
    this.table = new LazyTable(storage.sql, "duet_uploads", `slot INTEGER PRIMARY KEY, seq INTEGER NOT NULL, at INTEGER NOT NULL, upload TEXT NOT NULL`);
  }

  record(upload: Upload): void {
    this.table.make();
    this.nextSeq ??= Number(this.storage.sql.exec<Row>(`SELECT COALESCE(MAX(seq), 0) + 1 AS n FROM duet_uploads`).one().n);
    const seq = this.nextSeq++;
    this.storage.sql
      .exec(
        `INSERT INTO duet_uploads (slot, seq, at, upload) VALUES (?, ?, ?, ?)
         ON CONFLICT(slot) DO UPDATE SET seq = excluded.seq, at = excluded.at, upload = excluded.upload`,
        (seq - 1) % UPLOADS_KEEP, seq, this.now(), JSON.stringify(upload),
      )
      .toArray();
  }

  /** Uploads that arrived after `after` and no later than `until` (ms), oldest first. */
  between(after: number, until: number): Upload[] {
    if (!this.table.exists()) return [];
    return this.storage.sql
      .exec<Row>(`SELECT upload FROM duet_uploads WHERE at > ? AND at <= ? ORDER BY seq`, after, until)
      .toArray()
      .map((r) => JSON.parse(String(r.upload)) as Upload);
  }

  wipe(): void {
    this.nextSeq = null;
    if (this.table.exists()) this.storage.sql.exec(`DELETE FROM duet_uploads`).toArray();
  }
}

/** The line the model reads for one upload: who, name, size, type and where it is. */
export function describeUpload(u: Upload): string {
  return `${u.userId ?? "someone"} shared ${u.name} (${u.bytes} bytes, ${contentTypeOf(u.name).split(";")[0]}) at ${u.path}`;
}
