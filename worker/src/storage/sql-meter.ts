/** Rows and bound bytes written since this object started: what a message costs in storage. */
export interface WriteMeter {
  readonly rowsWritten: number;
  readonly bytesBound: number;
}

/** A string's UTF-8 length, counted without encoding it (a lone surrogate counts 3, as TextEncoder writes U+FFFD). */
export function utf8Length(s: string): number {
  let bytes = s.length;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x80) continue;
    if (c < 0x800) bytes += 1;
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length && (s.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
      bytes += 2; // a surrogate pair: 4 bytes for 2 code units
      i++;
    } else bytes += 2;
  }
  return bytes;
}

function boundBytes(params: unknown[]): number {
  let bytes = 0;
  for (const p of params) {
    if (typeof p === "string") bytes += utf8Length(p);
    else if (p instanceof ArrayBuffer) bytes += p.byteLength;
    else if (ArrayBuffer.isView(p)) bytes += p.byteLength;
    else if (p !== null && p !== undefined) bytes += 8;
  }
  return bytes;
}

/**
 * Meters every statement run on this object's SQLite database: the room's own
 * tables and the agents SDK's (its keep-alive job rows), so the per-message
 * figure is the whole cost, not just the part we wrote. Bytes count only for
 * statements that wrote rows, and are measured only for those. A cursor's
 * rowsWritten is final once it has been read, and every caller reads its cursor
 * before the next statement (storage calls are synchronous), so the previous
 * cursor is folded in when the next starts.
 */
export function meterSql(storage: DurableObjectStorage): WriteMeter {
  const sql = storage.sql;
  const exec = sql.exec.bind(sql);
  let rows = 0;
  let bytes = 0;
  let last: { cursor: SqlStorageCursor<Record<string, SqlStorageValue>>; params: SqlStorageValue[] } | null = null;
  const written = () => {
    const wrote = last?.cursor.rowsWritten ?? 0;
    return wrote > 0 ? { rows: wrote, bytes: boundBytes(last!.params) } : { rows: 0, bytes: 0 };
  };
  sql.exec = ((query: string, ...params: SqlStorageValue[]) => {
    const previous = written();
    rows += previous.rows;
    bytes += previous.bytes;
    last = { cursor: exec(query, ...params), params };
    return last.cursor;
  }) as typeof sql.exec;
  return {
    get rowsWritten() {
      return rows + written().rows;
    },
    get bytesBound() {
      return bytes + written().bytes;
    },
  };
}
