import { ASKED_KEEP_MS, ASKED_PER_ROOM, type QuotedMessage } from "@duet/shared";
import { LazyTable } from "./lazy-table.ts";

type Row = Record<string, SqlStorageValue>;

/**
 * The messages "Ask Duet" forms are open on in this room, one row each under
 * the bot's key (a person and a message), with its files' names and URLs, until the form is submitted: a bot
 * restarted meanwhile takes the message from here. A row older than
 * ASKED_KEEP_MS (an interaction's life) is never given back; the old rows go
 * with the next keep, and a room keeps at most ASKED_PER_ROOM of them. The
 * table is made by the first keep.
 */
export class AskedRows {
  private readonly table: LazyTable;

  constructor(private readonly sql: SqlStorage) {
    this.table = new LazyTable(sql, "duet_asked", "key TEXT PRIMARY KEY, author TEXT NOT NULL, text TEXT NOT NULL, files TEXT, at INTEGER NOT NULL");
  }

  /** Keeps `msg` (already checked and redacted) under `key`, in place of any kept there; when it stops being given back. */
  keep(key: string, msg: QuotedMessage, at: number): number {
    this.table.make();
    this.sql.exec("DELETE FROM duet_asked WHERE at <= ?", at - ASKED_KEEP_MS);
    this.sql.exec("INSERT OR REPLACE INTO duet_asked (key, author, text, files, at) VALUES (?, ?, ?, ?, ?)", key, msg.author, msg.text, filesColumn(msg), at);
    this.sql.exec("DELETE FROM duet_asked WHERE key IN (SELECT key FROM duet_asked ORDER BY at DESC, rowid DESC LIMIT -1 OFFSET ?)", ASKED_PER_ROOM);
    return at + ASKED_KEEP_MS;
  }

  /** The message kept under `key`, deleted as it is read; null when none is, or it was kept too long ago. */
  take(key: string, now: number): QuotedMessage | null {
    if (!this.table.exists()) return null;
    const [row] = this.sql.exec<Row>("DELETE FROM duet_asked WHERE key = ? RETURNING author, text, files, at", key).toArray();
    if (!row || now - Number(row.at) >= ASKED_KEEP_MS) return null;
    return { author: String(row.author), text: String(row.text), ...(row.files === null ? {} : fromFilesColumn(String(row.files))) };
  }

  wipe(): void {
    if (this.table.exists()) this.sql.exec("DELETE FROM duet_asked");
  }
}

/**
 * The `files` column: the names as a JSON list, or, when the bot also kept
 * where to fetch the files from, an object of both (a list read back is a row
 * kept with names only).
 */
function filesColumn(msg: QuotedMessage): string | null {
  if (msg.attachments?.length) return JSON.stringify({ files: msg.files ?? [], attachments: msg.attachments });
  return msg.files?.length ? JSON.stringify(msg.files) : null;
}

function fromFilesColumn(json: string): Pick<QuotedMessage, "files" | "attachments"> {
  const kept = JSON.parse(json) as string[] | Required<Pick<QuotedMessage, "files" | "attachments">>;
  if (Array.isArray(kept)) return { files: kept };
  return { ...(kept.files.length ? { files: kept.files } : {}), attachments: kept.attachments };
}
