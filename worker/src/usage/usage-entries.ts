/**
 * One model call's cost as its provider reported it; null counts where the
 * provider reported none (unknown, not zero). `costMicros`: what the tokens
 * cost in millionths of a US dollar at the model's price when the turn was
 * answered; absent when the model had no price or the tokens are unknown.
 */
export interface TurnUsage {
  model: string;
  inputTokens: number | null;
  outputTokens: number | null;
  costMicros?: number;
}

/** Dollars per million tokens are micro-dollars per token: the cost of one call's reported tokens, kept to a thousandth of a micro-dollar. */
export function costMicros(price: { input: number; output: number }, inputTokens: number, outputTokens: number): number {
  return Math.round((inputTokens * price.input + outputTokens * price.output) * 1000) / 1000;
}

/** Days of usage kept: the 7 the usage route shows, and today's budgets. */
export const USAGE_DAYS = 7;
const DAY_MS = 24 * 60 * 60 * 1000;

/**
 * One person's use of one model on one UTC day: tokens as the provider
 * reported them, how many turns, and how many of those the provider gave no
 * figures for (counted apart: unknown is not zero); what the priced turns cost
 * (micro-dollars) and how many turns with figures had no price.
 */
export interface UsageEntry {
  date: string;
  userId: string | null;
  userName: string | null;
  model: string;
  inputTokens: number;
  outputTokens: number;
  turns: number;
  unreported: number;
  costMicros: number;
  unpriced: number;
}

/** Days already written as `YYYY-MM-DD`, by day number: a turn's usage names its day and the week's, at every turn. */
const dayNames = new Map<number, string>();
/** Enough for a week's days and the turns' own, a few weeks over; past it the names are made again. */
const DAY_NAMES_KEPT = 64;

/** The UTC day of `at` (ms), as `YYYY-MM-DD`. */
export function utcDay(at: number): string {
  const day = Math.floor(at / DAY_MS);
  let name = dayNames.get(day);
  if (name === undefined) {
    if (dayNames.size >= DAY_NAMES_KEPT) dayNames.clear();
    name = new Date(at).toISOString().slice(0, 10);
    dayNames.set(day, name);
  }
  return name;
}

/** When the UTC day holding `now` ends: budgets reset then. */
export function nextUtcMidnight(now: number): number {
  return (Math.floor(now / DAY_MS) + 1) * DAY_MS;
}

/** The `USAGE_DAYS` UTC days up to the one holding `now`, newest first. */
export function recentDays(now: number): string[] {
  return Array.from({ length: USAGE_DAYS }, (_, i) => utcDay(now - i * DAY_MS));
}

/** Totals per day, person and model; adding the same turn twice counts it twice, so each source is added once. */
export class UsageTotals {
  private readonly entries = new Map<string, UsageEntry>();

  /** One answered turn's usage. */
  addTurn(at: number, userId: string | null, userName: string | null, usage: TurnUsage): void {
    const reported = usage.inputTokens !== null && usage.outputTokens !== null;
    const priced = reported && usage.costMicros !== undefined;
    this.add({
      date: utcDay(at), userId, userName, model: usage.model,
      inputTokens: reported ? usage.inputTokens! : 0, outputTokens: reported ? usage.outputTokens! : 0,
      turns: 1, unreported: reported ? 0 : 1,
      costMicros: priced ? usage.costMicros! : 0, unpriced: reported && !priced ? 1 : 0,
    });
  }

  /** Already-added totals (a rollup kept in a row, a thread room's figures). */
  add(e: UsageEntry): void {
    // Work no person asked for (the room's summaries) is told apart by its name, not merged with turns nobody is known to have asked.
    const key = JSON.stringify([e.date, e.userId, e.userId === null ? e.userName : null, e.model]);
    const have = this.entries.get(key);
    if (!have) {
      this.entries.set(key, { ...e });
      return;
    }
    have.inputTokens += e.inputTokens;
    have.outputTokens += e.outputTokens;
    have.turns += e.turns;
    have.unreported += e.unreported;
    have.costMicros += e.costMicros;
    have.unpriced += e.unpriced;
    // The newest name seen wins: people rename themselves.
    if (e.userName) have.userName = e.userName;
  }

  addAll(entries: Iterable<UsageEntry>): this {
    for (const e of entries) this.add(e);
    return this;
  }

  /** The entries of the last `USAGE_DAYS` days up to `now`; older ones are dropped. */
  list(now = Date.now()): UsageEntry[] {
    // YYYY-MM-DD sorts as the days do: two dates bound the window (a rollup is listed on every reused row).
    const newest = utcDay(now);
    const oldest = utcDay(now - (USAGE_DAYS - 1) * DAY_MS);
    return [...this.entries.values()].filter((e) => e.date >= oldest && e.date <= newest);
  }

  /** What the priced turns on `date` cost, in micro-dollars. */
  costOn(date: string): number {
    let sum = 0;
    for (const e of this.entries.values()) if (e.date === date) sum += e.costMicros;
    return sum;
  }

  /** Tokens in and out on `date`, all people, or one person's. */
  tokensOn(date: string, userId?: string): number {
    let sum = 0;
    for (const e of this.entries.values()) {
      if (e.date === date && (userId === undefined || e.userId === userId)) sum += e.inputTokens + e.outputTokens;
    }
    return sum;
  }
}
