type Row = Record<string, SqlStorageValue>;

/**
 * Rooms written before the ledger kept one row per turn stored each message
 * as a row (duet_messages) and their turns apart (duet_turns). Their history
 * becomes turn rows, once: each user message with the agent message after it.
 */
export function migrateMessageRows(sql: SqlStorage): void {
  const legacy = sql.exec<Row>(`SELECT name FROM sqlite_master WHERE type = 'table' AND name = 'duet_messages'`).toArray();
  if (!legacy.length) return;
  const messages = sql.exec<Row>(`SELECT role, user_id, text, ts FROM duet_messages ORDER BY id`).toArray();
  let seq = 0;
  for (let i = 0; i + 1 < messages.length; i++) {
    const [q, a] = [messages[i], messages[i + 1]];
    if (q.role !== "user" || a.role !== "agent") continue;
    sql.exec(
      `INSERT INTO duet_ledger (seq, kind, status, user_id, question, received_at, reply, answer, answered_at)
       VALUES (?, 'message', 'done', ?, ?, ?, ?, ?, ?)`,
      ++seq, q.user_id, q.text, q.ts, a.text, JSON.stringify({ explanation: a.text, runs: [] }), a.ts,
    );
    i++;
  }
  sql.exec(`DROP TABLE duet_messages`);
  sql.exec(`DROP TABLE IF EXISTS duet_turns`);
}

/**
 * Columns a room's table lacks when it was made before they were (SQLite adds
 * a column without rewriting rows). A new room's table is made with them all:
 * each ALTER writes a row in sqlite_master, which a new room should not pay.
 */
export function addColumns(sql: SqlStorage, columns: Readonly<Record<string, string>>): void {
  const have = new Set(sql.exec<Row>(`PRAGMA table_info(duet_ledger)`).toArray().map((c) => String(c.name)));
  for (const [name, type] of Object.entries(columns)) {
    if (!have.has(name)) sql.exec(`ALTER TABLE duet_ledger ADD COLUMN ${name} ${type}`);
  }
}
