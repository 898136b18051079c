import type { Naming } from "../format/control.ts";
import { dollars } from "../format/money.ts";
import type { PolicySource, UsageResponse, UsageRow } from "../wire/schemas.ts";

/**
 * The room's model and its usage in words every front end shares; each passes
 * how it names a person and shows a name (`code`).
 */

const MODEL_SOURCE: Record<PolicySource, string> = {
  room: " (set here)",
  channel: ", from this thread's channel",
  default: " (the default)",
};

/** "The model here is `x` (the default). Choices: `x`, `y`.", or who just switched it. */
export function describeModel(r: { model: string; choices: string[]; source?: PolicySource; setBy?: string }, name: Naming): string {
  if (r.setBy) return `${name.person(r.setBy)} switched the model here to ${name.command(r.model)}; the next question goes to it.`;
  const others = r.choices.length > 1 ? ` Choices: ${r.choices.map((c) => name.command(c)).join(", ")}.` : "";
  return `The model here is ${name.command(r.model)}${r.source ? MODEL_SOURCE[r.source] : ""}.${others}`;
}

/** The help line naming the room's model. */
export function modelLine(model: string): string {
  return `Model here: ${model}.`;
}

const tokens = (n: number) => n.toLocaleString("en-US");

/** A person's figures on one line: "Ada · fake-model · 1,234 in / 56 out · 3 turns". */
function usageRowLine(r: UsageRow, name: Naming): string {
  const who = r.userName ? (name.label?.(r.userName) ?? r.userName) : r.userId ? name.person(r.userId) : "someone";
  const figures = r.inputTokens === null || r.outputTokens === null ? "tokens unknown (the model reported none)" : `${tokens(r.inputTokens)} in / ${tokens(r.outputTokens)} out`;
  const unknown = r.unreported && r.inputTokens !== null ? ` (${r.unreported} without figures from the model)` : "";
  return `${who} · ${r.model} · ${figures}${costOf(r)} · ${r.turns} turn${r.turns === 1 ? "" : "s"}${unknown}`;
}

/** " · $0.012", with how many turns had no price; nothing for a model with no price at all (its tokens say it). */
function costOf(r: UsageRow): string {
  if (r.costUsd === undefined) return "";
  return ` · ${dollars(r.costUsd)}${r.unpriced ? ` (${r.unpriced} turn${r.unpriced === 1 ? "" : "s"} without a price)` : ""}`;
}

/** Sums a day's rows per person and model across the week (null stays null only when no turn had figures). */
function weekRows(u: UsageResponse): UsageRow[] {
  const sum = new Map<string, UsageRow>();
  for (const day of u.days) {
    for (const r of day.rows) {
      // Work no person asked for (the room's summaries) is told apart by its name.
      const key = JSON.stringify([r.userId, r.userId === null ? (r.userName ?? null) : null, r.model]);
      const have = sum.get(key);
      if (!have) {
        sum.set(key, { ...r });
        continue;
      }
      const add = (a: number | null, b: number | null) => (a === null ? b : b === null ? a : a + b);
      have.inputTokens = add(have.inputTokens, r.inputTokens);
      have.outputTokens = add(have.outputTokens, r.outputTokens);
      have.turns += r.turns;
      if (r.unreported) have.unreported = (have.unreported ?? 0) + r.unreported;
      if (r.costUsd !== undefined) have.costUsd = (have.costUsd ?? 0) + r.costUsd;
      if (r.unpriced) have.unpriced = (have.unpriced ?? 0) + r.unpriced;
      have.userName ??= r.userName;
    }
  }
  return [...sum.values()];
}

/** `/duet usage`: today, the last 7 days, by person and model, then the budgets and what is left. */
export function describeUsage(u: UsageResponse, name: Naming): string {
  const today = u.days[0]?.rows ?? [];
  const week = weekRows(u);
  const lines = ["Model usage here (this room and its threads; UTC days):", "", "Today:"];
  lines.push(...(today.length ? today.map((r) => `  ${usageRowLine(r, name)}`) : ["  nothing yet"]));
  lines.push("", "Last 7 days:");
  lines.push(...(week.length ? week.map((r) => `  ${usageRowLine(r, name)}`) : ["  nothing yet"]));
  lines.push("", ...budgetLines(u));
  const unpriced = new Set(week.filter((r) => r.inputTokens !== null && (r.costUsd === undefined || r.unpriced)).map((r) => r.model));
  if (unpriced.size) lines.push("", `No price for ${[...unpriced].map((m) => name.command(m)).join(", ")}: tokens only (prices are set in DUET_MODELS).`);
  return lines.join("\n");
}

/** What each daily budget allows and what is left today, tokens then money; one line when none is set. */
function budgetLines(u: UsageResponse): string[] {
  const resets = "resets at 00:00 UTC";
  const { room, user, roomUsd, userUsd } = u.budgets;
  const lines: string[] = [];
  if (room) lines.push(`Room budget: ${tokens(room.used ?? 0)} of ${tokens(room.limit)} tokens used today, ${tokens(room.left ?? 0)} left (${resets}).`);
  if (user) {
    const where = user.where ? ` ${user.where}` : "";
    lines.push(user.left !== undefined ? `Your budget${where}: ${tokens(user.used ?? 0)} of ${tokens(user.limit)} tokens used today, ${tokens(user.left)} left (${resets}).` : `Budget per person${where}: ${tokens(user.limit)} tokens a day.`);
  }
  if (roomUsd) lines.push(`Room spending: ${dollars(roomUsd.used ?? 0)} of ${dollars(roomUsd.limit)} today, ${dollars(roomUsd.left ?? 0)} left (${resets}).`);
  if (userUsd) {
    const where = userUsd.where ? ` ${userUsd.where}` : "";
    lines.push(userUsd.left !== undefined ? `Your spending${where}: ${dollars(userUsd.used ?? 0)} of ${dollars(userUsd.limit)} today, ${dollars(userUsd.left)} left (${resets}).` : `Spending per person${where}: ${dollars(userUsd.limit)} a day.`);
  }
  return lines.length ? lines : ["No daily budget is set."];
}
