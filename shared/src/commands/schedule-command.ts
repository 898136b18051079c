import { WHEN_MAX_CHARS } from "../wire/schedule-when.ts";
import { CHAT_SPELLING, scheduleUsage, type Spelling } from "../words/usage.ts";

/**
 * Where `<when>` ends and `<ask>` begins in `/duet schedule <when> <ask>`,
 * typed as one line: `every 30m …` and `every weekday 09:00 Europe/Berlin …`
 * by their shape, a cron line by its five fields and an optional zone, or
 * anything in double quotes (`"0 9 * * 1-5" …`). The Worker reads `<when>`
 * itself; this only splits, so its mistakes are the Worker's to explain.
 */


/** A zone name (`Europe/Berlin`, `America/Argentina/Salta`) or `UTC` / `GMT`: a word after the time. */
const ZONE = /^([A-Za-z_]+\/[A-Za-z0-9_+\-/]+|UTC|GMT|Etc\/[A-Za-z0-9+\-]+)$/;
/** A cron field: digits, `*`, ranges, lists and steps, or day and month names. */
const CRON_FIELD = /^([\d*?/,\-LW#]+|[A-Za-z]{3}([-,][A-Za-z]{3})*)$/;
const DAY_WORDS = new Set(["day", "weekday", "weekend", "sunday", "monday", "tuesday", "wednesday", "thursday", "friday", "saturday"]);

/** `spell` names the commands in a problem, as the surface the text came from writes them. */
export function splitScheduleText(text: string, spell: Spelling = CHAT_SPELLING): { when: string; ask: string } | { problem: string } {
  const trimmed = text.trim();
  if (!trimmed) return { problem: scheduleUsage(spell) };
  const quoted = /^"([^"]*)"\s*([\s\S]*)$/.exec(trimmed);
  if (quoted) return withAsk(quoted[1].trim(), quoted[2], spell);
  const words = trimmed.split(/\s+/);
  // The ask keeps its own line breaks: only the first `n` words are cut off.
  const take = (n: number) => withAsk(words.slice(0, n).join(" "), trimmed.replace(new RegExp(`^(\\S+\\s*){${n}}`), ""), spell);
  if (words[0].toLowerCase() === "every") {
    const second = (words[1] ?? "").toLowerCase();
    if (DAY_WORDS.has(second)) return take(words[3] !== undefined && ZONE.test(words[3]) ? 4 : 3);
    // `every 30m …` or `every 2 hours …`.
    return take(/^\d+$/.test(second) ? 3 : 2);
  }
  if (CRON_FIELD.test(words[0])) {
    // A sixth field that looks like one is kept with the line, so the Worker says a cron line has five.
    let n = 5;
    if (words[5] !== undefined && (ZONE.test(words[5]) || /^[\d*?/,\-]+$/.test(words[5]))) n = 6;
    return take(Math.min(n, words.length));
  }
  return { problem: `Start with when it should run. ${scheduleUsage(spell)}` };
}

function withAsk(when: string, ask: string, spell: Spelling): { when: string; ask: string } | { problem: string } {
  if (!when) return { problem: scheduleUsage(spell) };
  if (when.length > WHEN_MAX_CHARS) return { problem: `That schedule is ${when.length} characters long; Duet reads at most ${WHEN_MAX_CHARS}.` };
  if (!ask.trim()) return { problem: `What should Duet ask ${when}? ${scheduleUsage(spell)}` };
  return { when, ask: ask.trim() };
}
