/**
 * The outbox lives in the turn's own row (duet_ledger): where the answer goes,
 * what a bot posted for it, the platform id it was confirmed with, and the
 * lease of the bot delivering it. A new room's table is made with them; the
 * ledger adds them to tables made before the outbox (a new column costs no
 * row of the turns written).
 */
export const OUTBOX_COLUMNS: Readonly<Record<string, string>> = {
  deliver: "TEXT",
  posted: "TEXT",
  delivered: "TEXT",
  lease_until: "INTEGER",
};
