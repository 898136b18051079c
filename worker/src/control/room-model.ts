import { DuetError, type ModelResponse } from "@duet/shared";
import { LazyTable } from "../storage/lazy-table.ts";

type Row = Record<string, SqlStorageValue>;

/**
 * A room's model, as its run policy is kept (control/run-policy.ts): one row,
 * written only when someone switches (the table too, made by the first switch). A room that chose none follows its
 * channel's choice (a thread room), else the default. A choice the operator
 * no longer offers (DUET_MODELS changed) is passed over, never called.
 */
export class RoomModelStore {
  private cached: string | null | undefined;
  private readonly table: LazyTable;

  constructor(
    private readonly storage: DurableObjectStorage,
    /** The default first, then the rest the operator offers. */
    private readonly choices: readonly string[],
    private readonly inherited: () => string | null = () => null,
  ) {
    this.table = new LazyTable(storage.sql, "duet_model", `id INTEGER PRIMARY KEY CHECK (id = 1), model TEXT NOT NULL`);
  }

  /** The model chosen on this room itself, or null. */
  own(): string | null {
    if (this.cached === undefined) {
      const row = this.table.exists() ? this.storage.sql.exec<Row>(`SELECT model FROM duet_model WHERE id = 1`).toArray()[0] : undefined;
      this.cached = row ? String(row.model) : null;
    }
    return this.cached;
  }

  view(): ModelResponse {
    const choices = [...this.choices];
    const own = this.own();
    if (own && choices.includes(own)) return { model: own, source: "room", choices };
    const inherited = this.inherited();
    if (inherited && choices.includes(inherited)) return { model: inherited, source: "channel", choices };
    return { model: choices[0], source: "default", choices };
  }

  get(): string {
    return this.view().model;
  }

  /** One row written; a name not offered is refused with the list. */
  set(model: string): void {
    if (!this.choices.includes(model)) {
      throw new DuetError("invalid_request", `Unknown model "${model}". Choose one of: ${this.choices.join(", ")}`, {
        details: { model: [`Unknown model "${model}"; choose one of: ${this.choices.join(", ")}`] },
      });
    }
    this.table.make();
    this.storage.sql.exec(`INSERT INTO duet_model (id, model) VALUES (1, ?) ON CONFLICT(id) DO UPDATE SET model = excluded.model`, model).toArray();
    this.cached = model;
  }

  wipe(): void {
    if (this.table.exists()) this.storage.sql.exec(`DELETE FROM duet_model`).toArray();
    this.cached = null;
  }
}
