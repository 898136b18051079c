/**
 * Copies of a known secret (the Worker's and bots' own tokens, known exactly at
 * start) that a plain substring search misses: the value split over lines (`fold`,
 * a wrapped terminal, base64's 76-column lines) and its base64 encoding (`echo $T |
 * base64`, a config dump, a basic-auth header), standard or URL-safe, at any offset
 * inside longer base64 text.
 *
 * Each form becomes one regular expression that allows a line break between any two
 * characters. Every character is a literal and each break is optional in one way
 * only, so a match is found in time linear in the text.
 */

/** Base64 cores shorter than this are left alone: a dozen characters can occur by chance in base64 output. */
const MIN_CORE_CHARS = 16;
/** A split copy is only looked for in secrets this long; a short value broken by a newline reads too much like prose. */
const MIN_SPLIT_CHARS = 12;
/** A line break inside a copy: LF or CRLF, with the indentation a wrapped line may carry. */
const BREAK = "(?:\\r?\\n[ \\t]*)?";

const escape = (c: string) => c.replace(/[\\^$.*+?()[\]{}|/-]/g, "\\$&");

/**
 * The part of the base64 of `secret` that is the same wherever the secret sits in
 * the encoded bytes: for each of the three offsets, the characters that come only
 * from the secret's own bytes.
 */
function base64Cores(secret: string): string[] {
  const bytes = new TextEncoder().encode(secret);
  const cores: string[] = [];
  for (let lead = 0; lead < 3; lead++) {
    const padded = new Uint8Array(lead + bytes.length);
    padded.set(bytes, lead);
    const b64 = btoa(String.fromCharCode(...padded));
    // Characters touched by the lead bytes, and by whatever follows the secret, differ per context.
    const start = Math.ceil((lead * 4) / 3);
    const end = Math.floor(((lead + bytes.length) * 4) / 3);
    const core = b64.slice(start, end);
    if (core.length >= MIN_CORE_CHARS) cores.push(core, core.replace(/\+/g, "-").replace(/\//g, "_"));
  }
  return [...new Set(cores)];
}

/** One pattern for `text` that also matches it broken over lines. */
const brokenOverLines = (text: string) => [...text].map(escape).join(BREAK);

const cache = new Map<string, RegExp | null>();

/** What is looked for broken over lines: each secret long enough, and its base64 cores; longest first. */
function formsOf(secrets: readonly string[]): string[] {
  const forms = new Set<string>();
  for (const secret of secrets) {
    if (secret.length >= MIN_SPLIT_CHARS) forms.add(secret);
    for (const core of base64Cores(secret)) forms.add(core);
  }
  // Longest first, so a form that contains another wins.
  return [...forms].sort((a, b) => b.length - a.length);
}

/** The pattern that finds every variant of `secrets`, or null when none is long enough to look for. */
function variantsPattern(secrets: readonly string[]): RegExp | null {
  const key = secrets.join("\0");
  if (cache.has(key)) return cache.get(key)!;
  const sorted = formsOf(secrets);
  const re = sorted.length ? new RegExp(sorted.map(brokenOverLines).join("|"), "g") : null;
  if (cache.size > 32) cache.clear(); // a handful of secret sets per process; never grows without bound
  cache.set(key, re);
  return re;
}

/** Replaces split-line and base64 copies of `secrets` (already trimmed and long enough) with `marker`. */
export function redactSecretVariants(text: string, secrets: readonly string[], marker: string): string {
  if (!text || secrets.length === 0) return text;
  const re = variantsPattern(secrets);
  return re ? text.replace(re, marker) : text;
}

/** Where the line break (`\r?\n[ \t]*`) that text[0, at) ends in begins; -1 when it ends in none. */
function breakStart(text: string, at: number): number {
  let i = at;
  while (i > 0 && (text[i - 1] === " " || text[i - 1] === "\t")) i--;
  if (i === 0 || text[i - 1] !== "\n") return -1;
  i--;
  return i > 0 && text[i - 1] === "\r" ? i - 1 : i;
}

/** Where text[0, at) ends in form[0, n) broken over lines, read backwards; -1 when it does not. */
function startOfBrokenPrefix(text: string, at: number, form: string, n: number): number {
  let i = at;
  for (let k = n - 1; k >= 0; k--) {
    if (i === 0 || text[i - 1] !== form[k]) return -1;
    i--;
    // Forms hold no blanks, so a break here is one the copy may carry, never a character of it.
    if (k > 0 && text[i - 1] !== form[k - 1]) {
      const b = breakStart(text, i);
      if (b >= 0) i = b;
    }
  }
  return i;
}

/**
 * For text that arrives in pieces: when text[0, end) ends in a line break that
 * may sit inside a copy of one of `secrets` broken over lines (the copy's first
 * part, then the break, and the rest still to come), where that copy starts;
 * `end` otherwise. Text from there on must wait: once the rest arrives,
 * redactSecretVariants hides the whole copy.
 */
export function openVariantAt(text: string, end: number, secrets: readonly string[]): number {
  if (secrets.length === 0) return end;
  const brk = breakStart(text, end);
  if (brk < 0) return end;
  let at = end;
  for (const form of formsOf(secrets)) {
    for (let n = Math.min(form.length - 1, brk); n > 0; n--) {
      const start = startOfBrokenPrefix(text, brk, form, n);
      if (start >= 0) {
        at = Math.min(at, start);
        break;
      }
    }
  }
  return at;
}
