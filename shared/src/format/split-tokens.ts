/**
 * Tokens of well-known shapes (Slack, GitHub, AWS, OpenAI, Discord) broken
 * over lines, as `fold`, a narrow terminal or a wrapped log line leaves them:
 * each shape's rule is also run over the text with such breaks taken out, and
 * a match that spans one hides the whole token, both of its lines.
 *
 * Only a break between two token characters is taken out, a match counts only
 * where it ends a word on its last line, and a token is read on past a line
 * only while the lines are as long as its first (as `fold` and terminals break
 * them). A whole token that ends a line is not read on into a next line that
 * holds more words after its first; a lone word on the next line still reads as
 * the token's last piece and is hidden with it: better a word too many than half
 * a token.
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

/** Where a shape may start, read with every inner break taken out (a prefix may be broken too). */
const SHAPE_HINT = /xox|xapp-|gh[pousr]_|github_pat_|AKIA|ASIA|sk-|[MNO][A-Za-z0-9_-]{22,27}\.|aws_secret_access_key|SecretAccessKey/gi;
/** The most lines one token is read over: a token of 100 characters folded at 2 columns. */
const MAX_LINES = 64;

/** Text with every inner break taken out, and where each was. */
function joinedView(text: string): { joined: string; cuts: Cut[] } {
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
  return { joined: joined + text.slice(last), cuts };
}

type Edit = { start: number; end: number; by: string };

/**
 * The tokens of `rules`' shapes that start on the line at `lineStart` and go on
 * over the lines after it: the line, then the run of token characters that
 * starts each next line, joined one more line at a time. A match counts when it
 * runs through a break and ends a word on its last line.
 */
function tokensFrom(text: string, lineStart: number, rules: readonly Rule[]): Edit[] {
  let lineEnd = text.indexOf("\n", lineStart);
  if (lineEnd < 0) return [];
  const firstEnd = text[lineEnd - 1] === "\r" ? lineEnd - 1 : lineEnd;
  let joined = text.slice(lineStart, firstEnd);
  /** Where each joined piece starts, in `joined` and in `text`. */
  const pieces = [{ at: 0, from: lineStart }];
  const original = (c: number) => {
    let k = pieces.length - 1;
    while (pieces[k].at > c) k--;
    return pieces[k].from + (c - pieces[k].at);
  };
  const edits: Edit[] = [];
  for (let lines = 2; lines <= MAX_LINES && lineEnd >= 0; lines++) {
    const before = text[lineEnd - 1] === "\r" ? text[lineEnd - 2] : text[lineEnd - 1];
    let next = lineEnd + 1;
    while (text[next] === " " || text[next] === "\t") next++;
    if (!before || !TOKEN_CHAR.test(before) || next >= text.length || !TOKEN_CHAR.test(text[next])) break;
    let runEnd = next;
    while (runEnd < text.length && TOKEN_CHAR.test(text[runEnd])) runEnd++;
    // A line longer than the first is not part of the same fold.
    const nextEnd = text.indexOf("\n", next);
    if ((nextEnd < 0 ? text.length : nextEnd) - (lineEnd + 1) > firstEnd - lineStart + 1) break;
    const seam = joined.length;
    pieces.push({ at: seam, from: next });
    joined += text.slice(next, runEnd);
    // A run followed by more words on its line is a new line's first word, not a fold's last piece,
    // when the token before the break is already whole.
    const runEndsLine = runEnd === (nextEnd < 0 ? text.length : text[nextEnd - 1] === "\r" ? nextEnd - 1 : nextEnd);
    for (const rule of rules) {
      for (const m of joined.matchAll(rule.re)) {
        const end = m.index + m[0].length;
        if (m.index >= seam || end <= seam) continue;
        if (!runEndsLine && wholeMatch(rule, joined.slice(m.index, seam))) continue;
        const after = original(end - 1) + 1;
        if (after < text.length && WORD_GOES_ON.test(text[after])) continue;
        const by = rule.replace(m[0], ...m.slice(1));
        if (by !== m[0]) edits.push({ start: original(m.index), end: after, by });
      }
    }
    // The token goes on over the next break only where it fills this line, and the line is as long as the
    // first (`fold` and a terminal break every line at one width): a shorter line is the token's last.
    const thisStart = lineEnd + 1;
    lineEnd = text.indexOf("\n", runEnd);
    const line = text.slice(thisStart, lineEnd < 0 ? text.length : lineEnd).replace(/\r$/, "");
    if (thisStart + line.length !== runEnd || line.length !== firstEnd - lineStart) break;
  }
  return edits;
}

const anchored = new WeakMap<Rule, RegExp>();
/** Whether `text` is, all of it, one token of `rule`'s shape. */
function wholeMatch(rule: Rule, text: string): boolean {
  let re = anchored.get(rule);
  if (!re) anchored.set(rule, (re = new RegExp(`^(?:${rule.re.source})$`, rule.re.flags.replace("g", ""))));
  return re.test(text);
}

/** Replaces each token of `rules`' shapes that a line break runs through, break and all. */
export function redactAcrossBreaks(text: string, rules: readonly Rule[]): string {
  if (!text.includes("\n")) return text;
  const { joined, cuts } = joinedView(text);
  if (cuts.length === 0) return text;
  const edits: Edit[] = [];
  const tried = new Set<number>();
  for (const hint of joined.matchAll(SHAPE_HINT)) {
    const at = originalAt(cuts, hint.index);
    const lineStart = text.lastIndexOf("\n", at - 1) + 1;
    if (tried.has(lineStart)) continue;
    tried.add(lineStart);
    edits.push(...tokensFrom(text, lineStart, rules));
  }
  if (edits.length === 0) return text;
  // Earliest first and, of those starting together, the longest: it holds the others.
  edits.sort((a, b) => a.start - b.start || b.end - a.end);
  let out = "";
  let done = 0;
  for (const edit of edits) {
    if (edit.start < done) continue; // inside one already made
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
 * rest still to come), where that token starts; `end` otherwise. Without
 * `prefixTails`, a line that ends in only the first letters of a shape's
 * prefix (the `g` of `ghp_`) is not held: the letters give nothing away.
 */
export function openShapeAt(text: string, end: number, prefixTails = true): number {
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
  if (!prefixTails) return end;
  const tail = run.toLowerCase();
  for (const prefix of SHAPE_PREFIXES) {
    for (let n = Math.min(prefix.length - 1, tail.length); n > 0; n--) if (tail.endsWith(prefix.slice(0, n))) return start;
  }
  return end;
}
