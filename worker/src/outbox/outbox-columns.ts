/**
 * The outbox lives in the turn's own row (duet_ledger): where the answer goes,
 * what a bot posted for it, the platform id it was confirmed with, and the
 * lease of the bot delivering it. Added to tables made before the outbox; a
 * new column costs no row written.
 */
const COLUMNS: Record<string, string> = {
  deliver: "TEXT",
  posted: "TEXT",
  delivered: "TEXT",
  lease_until: "INTEGER",
};

export function addOutboxColumns(sql: SqlStorage): void {
  const have = new Set(sql.exec<{ name: string }>(`PRAGMA table_info(duet_ledger)`).toArray().map((c) => String(c.name)));
  for (const [name, type] of Object.entries(COLUMNS)) {
    if (!have.has(name)) sql.exec(`ALTER TABLE duet_ledger ADD COLUMN ${name} ${type}`);
  }
}
