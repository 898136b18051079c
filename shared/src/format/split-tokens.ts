/**
 * Tokens of well-known shapes (Slack, GitHub, AWS, OpenAI, Discord) broken
 * over lines, as `fold`, a narrow terminal or a wrapped log line leaves them:
 * each shape's rule is also run over the text with such breaks taken out, and
 * a match that spans one hides the whole token, both of its lines.
 *
 * Only a break between two token characters is taken out, and a match counts
 * only where it ends a word on its last line. A token at the end of one line
 * and a lone word on the next still read as one, and the word is hidden with
 * the token: better a word too many than half a token.
 */

/** A rule as redact.ts writes them: a global pattern and what a match becomes. */
export type Rule = { re: RegExp; replace: (match: string, ...groups: string[]) => string };

const TOKEN_CHAR = /[A-Za-z0-9_+/=.-]/;
/** A line break inside a token: after a token character, before one (past the next line's indentation). */
const INNER_BREAK = /(?<=[A-Za-z0-9_+/=.-])\r?\n[ \t]*(?=[A-Za-z0-9_+/=.-])/g;

/** A character that continues a word past where a shape stopped. */
const WORD_GOES_ON = /[A-Za-z0-9_+/=-]/;

/** Where the text was cut: removed text stood before joined[at]; `total` characters were removed up to and including it. */
type Cut = { at: number; total: number };

/** Original index of joined[j]: j plus every cut at or before it. */
function originalAt(cuts: Cut[], j: number): number {
  let lo = 0;
  let hi = cuts.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (cuts[mid].at <= j) lo = mid + 1;
    else hi = mid;
  }
  return j + (lo > 0 ? cuts[lo - 1].total : 0);
}

/** Replaces each token of `rules`' shapes that a line break runs through, break and all. */
export function redactAcrossBreaks(text: string, rules: readonly Rule[]): string {
  if (!text.includes("\n")) return text;
  const cuts: Cut[] = [];
  let joined = "";
  let last = 0;
  let total = 0;
  for (const m of text.matchAll(INNER_BREAK)) {
    joined += text.slice(last, m.index);
    total += m[0].length;
    cuts.push({ at: joined.length, total });
    last = m.index + m[0].length;
  }
  if (cuts.length === 0) return text;
  joined += text.slice(last);
  const edits: Array<{ start: number; end: number; by: string }> = [];
  for (const rule of rules) {
    for (const m of joined.matchAll(rule.re)) {
      const s = m.index;
      const e = s + m[0].length;
      // Only a match a break runs through: the rules find the others on the text as it is.
      if (!cuts.some((c) => c.at > s && c.at < e)) continue;
      // The token's end on its last line must end a word there: a shape that stops inside the next line's
      // word (`…xoxb-…` then `DISCORD_TOKEN=…` on the next line) read that word as its own, and is no match.
      const after = originalAt(cuts, e - 1) + 1;
      if (after < text.length && WORD_GOES_ON.test(text[after])) continue;
      const by = rule.replace(m[0], ...m.slice(1));
      if (by !== m[0]) edits.push({ start: originalAt(cuts, s), end: originalAt(cuts, e - 1) + 1, by });
    }
  }
  if (edits.length === 0) return text;
  edits.sort((a, b) => a.start - b.start);
  let out = "";
  let done = 0;
  for (const edit of edits) {
    if (edit.start < done) continue; // overlaps one already made
    out += text.slice(done, edit.start) + edit.by;
    done = edit.end;
  }
  return out + text.slice(done);
}

/** Text that, at the end of a line, may go on as one of the shapes on the next. */
const SHAPE_START = /xox|xapp-|gh[pousr]_|github_pat_|AKIA|ASIA|sk-|[MNO][A-Za-z0-9_-]{8,}|aws_secret_access_key|secretaccesskey/i;
const SHAPE_PREFIXES = ["xoxe.", "xapp-", "ghp_", "github_pat_", "akia", "asia", "sk-", "aws_secret_access_key", "secretaccesskey"];
/** How far back a token broken over lines is read: longer than any shape above. */
const LOOK_BACK = 256;

/**
 * For text that arrives in pieces: when text[0, end) ends in a line break that
 * may sit inside a token of the shapes above (its first part, the break, the
 * rest still to come), where that token starts; `end` otherwise.
 */
export function openShapeAt(text: string, end: number): number {
  let i = end;
  while (i > 0 && (text[i - 1] === " " || text[i - 1] === "\t")) i--;
  if (i === 0 || text[i - 1] !== "\n") return end;
  i--;
  if (i > 0 && text[i - 1] === "\r") i--;
  // Back over the token, and over earlier breaks inside it.
  const stop = Math.max(0, i - LOOK_BACK);
  let start = i;
  for (;;) {
    while (start > stop && TOKEN_CHAR.test(text[start - 1])) start--;
    // A break inside the token: the segment starts its line (past indentation), and the line before ends in a token character.
    let b = start;
    while (b > stop && (text[b - 1] === " " || text[b - 1] === "\t")) b--;
    if (b <= stop || text[b - 1] !== "\n") break;
    let c = b - 1;
    if (c > stop && text[c - 1] === "\r") c--;
    if (c <= stop || !TOKEN_CHAR.test(text[c - 1])) break;
    start = c;
  }
  if (start === i) return end;
  const run = text.slice(start, i).replace(/\r?\n[ \t]*/g, "");
  const lineStart = text.lastIndexOf("\n", start - 1) + 1;
  const line = text.slice(lineStart, start).toLowerCase();
  if (SHAPE_START.test(run) || /aws_secret_access_key|secretaccesskey/.test(line)) return start;
  const tail = run.toLowerCase();
  for (const prefix of SHAPE_PREFIXES) {
    for (let n = Math.min(prefix.length - 1, tail.length); n > 0; n--) if (tail.endsWith(prefix.slice(0, n))) return start;
  }
  return end;
}
