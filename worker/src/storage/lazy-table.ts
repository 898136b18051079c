type Row = Record<string, SqlStorageValue>;

/**
 * A table made on its first write, not when the room wakes: creating a table
 * writes rows in sqlite_master (two, plus one per index), which a room that
 * never schedules, uploads or picks a model should not pay. Reads ask `exists`
 * first and read nothing from a table that is not there, without making it.
 */
export class LazyTable {
  /**
   * Whether the table is there, looked up in sqlite_master once per instance:
   * only `make` creates it (this object is its table's one maker in the room),
   * and a table, once made, stays (a room's reset empties it). Asked per turn
   * (the uploads, the tools), so an absent table is not looked up every time.
   */
  private seen: boolean | undefined;

  constructor(
    private readonly sql: SqlStorage,
    readonly name: string,
    /** The column definitions, as CREATE TABLE takes them. */
    private readonly columns: string,
  ) {}

  /** Whether the table is there to read (no row written). */
  exists(): boolean {
    this.seen ??= this.sql.exec<Row>(`SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?`, this.name).toArray().length > 0;
    return this.seen;
  }

  /** Before a write: makes the table if it is not there (no row written when it is), once per instance. */
  make(): void {
    if (this.seen === true) return;
    this.sql.exec(`CREATE TABLE IF NOT EXISTS ${this.name} (${this.columns})`);
    this.seen = true;
  }
}
