import { AUDIT_KEEP, type AuditEntry } from "@duet/shared";

type Row = Record<string, SqlStorageValue>;

/**
 * A room's audit trail, oldest first. Each row holds one event, or every
 * automatic command of one turn (so an automatic turn costs one row written
 * however many commands it ran). Rows live in AUDIT_KEEP fixed slots: once all
 * are used, the next event overwrites the oldest with an upsert, one row
 * written, and the table never grows. No index beyond the slot (the rowid),
 * since each index would add a row written per event.
 */
export class AuditLog {
  private nextSeq: number | null = null;

  constructor(
    private readonly storage: DurableObjectStorage,
    private readonly keep = AUDIT_KEEP,
  ) {
    storage.sql.exec(`CREATE TABLE IF NOT EXISTS duet_audit (slot INTEGER PRIMARY KEY, seq INTEGER NOT NULL, entries TEXT NOT NULL)`);
  }

  /** Records events that happened together as one row; nothing is written for none. */
  record(entries: AuditEntry[]): void {
    if (!entries.length) return;
    this.nextSeq ??= Number(this.storage.sql.exec<Row>(`SELECT COALESCE(MAX(seq), 0) + 1 AS n FROM duet_audit`).one().n);
    const seq = this.nextSeq++;
    this.storage.sql
      .exec(
        `INSERT INTO duet_audit (slot, seq, entries) VALUES (?, ?, ?)
         ON CONFLICT(slot) DO UPDATE SET seq = excluded.seq, entries = excluded.entries`,
        (seq - 1) % this.keep, seq, JSON.stringify(entries.map(compact)),
      )
      .toArray();
  }

  entries(): AuditEntry[] {
    return this.storage.sql
      .exec<Row>(`SELECT entries FROM duet_audit ORDER BY seq`)
      .toArray()
      .flatMap((r) => JSON.parse(String(r.entries)) as AuditEntry[]);
  }

  wipe(): void {
    this.nextSeq = null;
    this.storage.sql.exec(`DELETE FROM duet_audit`).toArray();
  }
}

/** Leaves out fields that are not set, so the stored JSON and the answer carry only what happened. */
function compact(entry: AuditEntry): AuditEntry {
  return Object.fromEntries(Object.entries(entry).filter(([, v]) => v !== undefined)) as AuditEntry;
}
