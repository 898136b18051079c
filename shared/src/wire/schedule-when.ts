import { Cron } from "croner";
import { DuetError } from "./errors.ts";

/**
 * When a scheduled ask runs, as a person types it: `every 30m`, `every 2h`,
 * `every day 09:00 Europe/Berlin`, `every weekday 09:00 Europe/Berlin`,
 * `every monday 08:30 UTC`, or a 5-field cron line with an optional time zone
 * (`0 9 * * 1-5 Europe/Berlin`). Day and time forms become cron lines, so
 * time zones and daylight saving are croner's (Intl underneath, as workerd
 * has it); intervals count from the moment the schedule was made.
 */
export type ScheduleSpec =
  | { kind: "interval"; everyS: number }
  | { kind: "cron"; cron: string; timeZone: string };

/** Longest `<when>` read: the longest real form (a cron line with a long zone name) is about 60 characters. */
export const WHEN_MAX_CHARS = 120;
/** The longest interval: a schedule that runs less than once a year is more likely a typo. */
export const INTERVAL_MAX_S = 366 * 24 * 60 * 60;
/** Occurrences looked at to measure a cron line's shortest gap: enough to see a minute list or range repeat. */
const GAP_SAMPLE = 24;

const UNIT_SECONDS: Record<string, number> = { s: 1, m: 60, h: 3600, d: 86_400 };
const UNIT_WORDS: Record<string, string> = {
  s: "s", sec: "s", secs: "s", second: "s", seconds: "s",
  m: "m", min: "m", mins: "m", minute: "m", minutes: "m",
  h: "h", hr: "h", hrs: "h", hour: "h", hours: "h",
  d: "d", day: "d", days: "d",
};
const DAYS: Record<string, string> = {
  day: "*", weekday: "1-5", weekend: "0,6",
  sunday: "0", monday: "1", tuesday: "2", wednesday: "3", thursday: "4", friday: "5", saturday: "6",
};

const CRON_NAMES = /^((sun|mon|tue|wed|thu|fri|sat|jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[-,/]?)+$/i;

const EXAMPLES = "`every 30m`, `every weekday 09:00 Europe/Berlin`, `every monday 08:30 UTC` or a cron line such as `0 9 * * 1-5 Europe/Berlin`";

function bad(message: string): DuetError {
  return new DuetError("invalid_request", message, { details: { when: [message] } });
}

/** Whether `zone` is a time zone Intl knows (`UTC`, `Europe/Berlin`). */
export function isTimeZone(zone: string): boolean {
  try {
    new Intl.DateTimeFormat("en-US", { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}

function zoneOf(word: string | undefined): string {
  if (word === undefined) return "UTC";
  if (!isTimeZone(word)) throw bad(`Unknown time zone \`${quote(word)}\`: use a name such as \`Europe/Berlin\`, \`America/New_York\` or \`UTC\`.`);
  return word;
}

const quote = (word: string) => (word.length > 40 ? `${word.slice(0, 40)}…` : word).replace(/`/g, "'");

/** `every 30m`, `every 2 hours`: the interval in seconds, or null when `words` is not that form. */
function readInterval(words: string[]): number | null {
  if (words.length === 2) {
    const m = /^(\d+)([a-z]+)$/.exec(words[1]);
    if (!m) return null;
    return intervalOf(m[1], m[2]);
  }
  if (words.length === 3 && /^\d+$/.test(words[1])) return intervalOf(words[1], words[2]);
  return null;
}

function intervalOf(count: string, unitWord: string): number {
  const unit = UNIT_WORDS[unitWord];
  if (!unit) throw bad(`Unknown unit \`${quote(unitWord)}\`: use m (minutes), h (hours) or d (days), e.g. \`every 30m\`.`);
  // Checked as digits first: a 400-digit count must not turn into Infinity.
  if (count.length > 9) throw bad(`That interval is too long: Duet runs a schedule at least once a year.`);
  const seconds = Number(count) * UNIT_SECONDS[unit];
  if (seconds <= 0) throw bad("An interval must be more than zero, e.g. `every 30m`.");
  if (seconds > INTERVAL_MAX_S) throw bad(`That interval is too long: Duet runs a schedule at least once a year.`);
  return seconds;
}

/** `every day|weekday|<weekday> HH:MM [zone]` as a cron line, or null when `words` is not that form. */
function readDayTime(words: string[]): ScheduleSpec | null {
  const days = DAYS[words[1]];
  if (days === undefined) return null;
  const time = /^(\d{1,2}):(\d{2})$/.exec(words[2] ?? "");
  if (!time) throw bad(`\`every ${words[1]}\` needs a time of day, e.g. \`every ${words[1]} 09:00 Europe/Berlin\`.`);
  const [hour, minute] = [Number(time[1]), Number(time[2])];
  if (hour > 23 || minute > 59) throw bad(`\`${words[2]}\` is not a time of day: use 00:00 to 23:59.`);
  if (words.length > 4) throw bad(`Unexpected \`${quote(words.slice(4).join(" "))}\` after the time zone.`);
  return { kind: "cron", cron: `${minute} ${hour} * * ${days}`, timeZone: zoneOf(words[3]) };
}

/** A cron line of 5 fields and an optional zone; other field counts are told apart from a typo. */
function readCron(original: string[]): ScheduleSpec {
  // A sixth word with letters that are not cron names (MON-FRI, JAN) is a zone; digits and names are a sixth field.
  const hasZone = original.length === 6 && /[A-Za-z]/.test(original[5]) && !CRON_NAMES.test(original[5]);
  const fields = hasZone ? original.slice(0, 5) : original;
  if (fields.length !== 5) {
    throw bad(`A cron line has 5 fields (minute hour day month weekday), optionally followed by a time zone; this one has ${fields.length}. Try ${EXAMPLES}.`);
  }
  const timeZone = zoneOf(hasZone ? original[5] : undefined);
  const cron = fields.join(" ");
  try {
    new Cron(cron, { paused: true, mode: "5-part", timezone: timeZone });
  } catch (err) {
    throw bad(`\`${quote(cron)}\` is not a cron line Duet can read (${String((err as Error).message).replace(/^CronPattern: /, "")}). Try ${EXAMPLES}.`);
  }
  return { kind: "cron", cron, timeZone };
}

/** Reads `<when>`; a DuetError (400, `details.when`) says what is wrong in words a person can act on. */
export function parseWhen(text: string): ScheduleSpec {
  const trimmed = text.trim();
  if (!trimmed) throw bad(`When should it run? Try ${EXAMPLES}.`);
  if (trimmed.length > WHEN_MAX_CHARS) throw bad(`That schedule is ${trimmed.length} characters long; Duet reads at most ${WHEN_MAX_CHARS}. Try ${EXAMPLES}.`);
  const original = trimmed.split(/\s+/);
  const words = original.map((w) => w.toLowerCase());
  if (words[0] === "every") {
    if (words.length === 1) throw bad(`\`every\` needs how often, e.g. ${EXAMPLES}.`);
    const everyS = readInterval(words);
    if (everyS !== null) return { kind: "interval", everyS };
    const dayTime = readDayTime([words[0], words[1], words[2], ...original.slice(3)].filter((w) => w !== undefined));
    if (dayTime) return dayTime;
    throw bad(`Duet can't read \`${quote(trimmed)}\`. Try ${EXAMPLES}.`);
  }
  if (!/^[\d*]/.test(original[0])) throw bad(`Duet can't read \`${quote(trimmed)}\`. Try ${EXAMPLES}.`);
  return readCron(original);
}

/** The next `count` runs strictly after `after` (ms); an interval counts whole steps from `anchor`. */
export function nextRuns(spec: ScheduleSpec, after: number, count: number, anchor = after): number[] {
  if (spec.kind === "interval") {
    const step = spec.everyS * 1000;
    const first = anchor + (Math.floor(Math.max(0, after - anchor) / step) + 1) * step;
    return Array.from({ length: count }, (_, i) => first + i * step);
  }
  const job = new Cron(spec.cron, { paused: true, mode: "5-part", timezone: spec.timeZone });
  return job.nextRuns(count, new Date(after)).map((d) => d.getTime());
}

/** The shortest gap between runs in seconds (an interval's own; a cron line's over its next occurrences), null when it never runs. */
export function shortestGapS(spec: ScheduleSpec, now: number): number | null {
  if (spec.kind === "interval") return spec.everyS;
  const runs = nextRuns(spec, now, GAP_SAMPLE);
  if (runs.length === 0) return null;
  if (runs.length === 1) return Infinity;
  let gap = Infinity;
  for (let i = 1; i < runs.length; i++) gap = Math.min(gap, runs[i] - runs[i - 1]);
  return gap / 1000;
}

/** Reads `<when>` and checks it runs, and never more often than every `minIntervalS` seconds. */
export function parseSchedule(text: string, minIntervalS: number, now: number): ScheduleSpec {
  const spec = parseWhen(text);
  const gap = shortestGapS(spec, now);
  if (gap === null) throw bad(`\`${quote(text.trim())}\` never runs (no such date). Try ${EXAMPLES}.`);
  if (gap < minIntervalS) {
    throw bad(`That runs every ${describeSeconds(gap)} at its most frequent; schedules here run at most every ${describeSeconds(minIntervalS)}.`);
  }
  return spec;
}

/** `15 minutes`, `2 hours`, `90 seconds`: the largest whole unit. */
export function describeSeconds(s: number): string {
  const unit = s % 86_400 === 0 ? ["day", 86_400] : s % 3600 === 0 ? ["hour", 3600] : s % 60 === 0 ? ["minute", 60] : ["second", 1];
  const n = s / (unit[1] as number);
  return `${n} ${unit[0]}${n === 1 ? "" : "s"}`;
}

/** How a schedule reads back in lists: the interval in words, or the cron line with its zone. */
export function describeSpec(spec: ScheduleSpec): string {
  return spec.kind === "interval" ? `every ${describeSeconds(spec.everyS)}` : `${spec.cron} (${spec.timeZone})`;
}
