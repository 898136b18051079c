/** The runs of some groups whose figures RESULTS.md merges: what each measured, and when. */

/** One `pnpm bench <groups>` run whose figures were kept: which groups, when, how long, and the load. */
export interface GroupsRun {
  groups: string[];
  date: string;
  seconds: number;
  load: { start: string; end: string };
  /** What a person added about the run (e.g. "a quiet run after the bots' change"). */
  note?: string;
}

/**
 * The runs of some groups whose figures a new run of `groups` keeps: the previous ones, each
 * without the groups measured again (and gone when none is left), then this one.
 */
export function groupsRuns(previous: GroupsRun[], groups: string[], now: GroupsRun): GroupsRun[] {
  const left = previous.map((r) => ({ ...r, groups: r.groups.filter((g) => !groups.includes(g)) })).filter((r) => r.groups.length);
  return [...left, now];
}

/** The header's sentence for a run of some groups: each kept run with its date, time and load, then where the rest come from. */
export function groupsRunsLine(runs: GroupsRun[], where: string, keptFrom: string | undefined): string {
  const each = runs.map((r) => `\`pnpm bench ${r.groups.join(" ")}\` ${r.date} (${r.seconds} s, load average ${r.load.start} → ${r.load.end}${r.note ? `; ${r.note}` : ""})`);
  const rest = keptFrom ? `the other figures are kept from the run of ${keptFrom}` : "no other figures were kept";
  return `${each.join(", ")}, each on ${where}, in separate runs merged here; ${rest}.`;
}
