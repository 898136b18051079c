/**
 * Copies of a known secret (the Worker's and bots' own tokens, known exactly at
 * start) that a plain substring search misses. The text is folded first
 * (folded-text.ts: case, separators, blanks and line breaks, zero-width and
 * control characters, terminal escapes and `%XX`/`\xXX` escapes), so each of
 * these is one spelling of the secret: split over lines, uppercased, written a
 * character at a time with blanks, dashes, zero-width spaces or colour codes
 * between, URL-encoded. Besides the secret itself, its encodings are looked
 * for: reversed, hex, base32, and base64 (standard or URL-safe) at any offset
 * inside longer encoded text.
 *
 * Not caught, and not catchable by looking at text: compressed or encrypted
 * copies, or any encoding not listed here. The defence against those is that
 * the secret never enters the sandbox.
 */

import { foldText } from "./folded-text.ts";

/** Encoded cores shorter than this are left alone: a dozen characters can occur by chance in encoded output. */
const MIN_CORE_CHARS = 16;
/** Variants are only looked for in secrets this long (folded); a short value is too likely to occur in ordinary text. */
const MIN_SPLIT_CHARS = 12;

const bytesOf = (s: string) => new TextEncoder().encode(s);

function base64(bytes: Uint8Array): string {
  return btoa(String.fromCharCode(...bytes));
}

const BASE32 = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";
function base32(bytes: Uint8Array): string {
  let out = "";
  let bits = 0;
  let value = 0;
  for (const b of bytes) {
    value = (value << 8) | b;
    bits += 8;
    while (bits >= 5) {
      out += BASE32[(value >>> (bits - 5)) & 31];
      bits -= 5;
    }
    value &= (1 << bits) - 1;
  }
  return bits > 0 ? out + BASE32[(value << (5 - bits)) & 31] : out;
}

/**
 * The part of an encoding of `secret` that is the same wherever the secret sits
 * in the encoded bytes: for each offset inside an encoding group (`group` bytes
 * make `chars` characters), the characters that come only from the secret's
 * own bytes.
 */
function encodedCores(secret: string, encode: (b: Uint8Array) => string, group: number, chars: number): string[] {
  const bytes = bytesOf(secret);
  const cores: string[] = [];
  for (let lead = 0; lead < group; lead++) {
    const padded = new Uint8Array(lead + bytes.length);
    padded.set(bytes, lead);
    const encoded = encode(padded);
    // Characters touched by the lead bytes, and by whatever follows the secret, differ per context.
    const core = encoded.slice(Math.ceil((lead * chars) / group), Math.floor(((lead + bytes.length) * chars) / group));
    if (core.length >= MIN_CORE_CHARS) cores.push(core);
  }
  return cores;
}

const urlSafe = (b64: string) => b64.replace(/\+/g, "-").replace(/\//g, "_");
const hex = (s: string) => [...bytesOf(s)].map((b) => b.toString(16).padStart(2, "0")).join("");

const cache = new Map<string, string[]>();

/** Every spelling looked for, folded, longest first (so a form that contains another wins). */
function formsOf(secrets: readonly string[]): string[] {
  const key = secrets.join("\0");
  const known = cache.get(key);
  if (known) return known;
  const forms = new Set<string>();
  const add = (form: string, min: number) => {
    const folded = foldText(form).text;
    if (folded.length >= min) forms.add(folded);
  };
  for (const secret of secrets) {
    if (foldText(secret).text.length < MIN_SPLIT_CHARS) continue;
    add(secret, MIN_SPLIT_CHARS);
    add([...secret].reverse().join(""), MIN_SPLIT_CHARS);
    add(hex(secret), MIN_SPLIT_CHARS);
    for (const core of encodedCores(secret, base64, 3, 4)) {
      add(core, MIN_CORE_CHARS);
      add(urlSafe(core), MIN_CORE_CHARS);
    }
    for (const core of encodedCores(secret, base32, 5, 8)) add(core, MIN_CORE_CHARS);
  }
  const sorted = [...forms].sort((a, b) => b.length - a.length);
  if (cache.size > 32) cache.clear(); // a handful of secret sets per process; never grows without bound
  cache.set(key, sorted);
  return sorted;
}

/** Replaces every spelling of `secrets` (already trimmed) with `marker`. */
export function redactSecretVariants(text: string, secrets: readonly string[], marker: string): string {
  if (!text || secrets.length === 0) return text;
  const forms = formsOf(secrets);
  if (forms.length === 0) return text;
  // Most text holds no copy: it is folded without the map first, and mapped only when it holds one.
  const plain = foldText(text).text;
  if (!forms.some((form) => plain.includes(form))) return text;
  const { text: folded, from, to } = foldText(text, true);
  const spans: Array<[number, number]> = [];
  for (const form of forms) {
    for (let at = folded.indexOf(form); at >= 0; at = folded.indexOf(form, at + 1)) spans.push([from![at], to![at + form.length - 1]]);
  }
  spans.sort((a, b) => a[0] - b[0]);
  let out = "";
  let done = 0;
  for (let k = 0; k < spans.length; ) {
    const start = spans[k][0];
    let end = spans[k][1];
    for (k++; k < spans.length && spans[k][0] < end; k++) end = Math.max(end, spans[k][1]);
    out += text.slice(done, start) + marker;
    done = end;
  }
  return out + text.slice(done);
}

/** How much of `form` text ends in: the longest proper start of `form` that is an end of `text`. */
function openPrefixLength(text: string, form: string): number {
  // Knuth-Morris-Pratt over the last form.length - 1 characters: linear in the form.
  const fail = new Int32Array(form.length);
  for (let i = 1, k = 0; i < form.length; i++) {
    while (k > 0 && form[i] !== form[k]) k = fail[k - 1];
    if (form[i] === form[k]) k++;
    fail[i] = k;
  }
  let k = 0;
  for (let i = Math.max(0, text.length - form.length + 1); i < text.length; i++) {
    while (k > 0 && (k === form.length || text[i] !== form[k])) k = fail[k - 1];
    if (text[i] === form[k]) k++;
  }
  return k === form.length ? fail[k - 1] : k;
}

/** The shortest start of a copy that waits at a blank (see openVariantAt). */
const MIN_HELD_AFTER_BLANK = 4;
/** How far back from its end text is read for an open copy: a copy may carry a few characters of escape or blank between each of its own. */
const LOOK_BACK_PER_CHAR = 16;

/**
 * For text that arrives in pieces: when text[0, end) ends in what may be the
 * first part of a copy of one of `secrets` (the rest still to come after a
 * blank or a line break), where that copy starts; `end` otherwise. Text from
 * there on must wait: once the rest arrives, redactSecretVariants hides the
 * whole copy.
 */
export function openVariantAt(text: string, end: number, secrets: readonly string[]): number {
  if (secrets.length === 0 || end === 0) return end;
  const forms = formsOf(secrets);
  if (forms.length === 0) return end;
  const start = Math.max(0, end - LOOK_BACK_PER_CHAR * forms[0].length);
  const { text: folded, from } = foldText(text.slice(start, end), true);
  // After a line break any start of a copy waits. After a blank only one of a few characters does: prose would
  // wait word by word on one-letter starts, and the first few characters of a copy, let out, give nothing away.
  const least = /\n[ \t]*$/.test(text.slice(Math.max(0, end - 64), end)) ? 1 : MIN_HELD_AFTER_BLANK;
  let at = end;
  for (const form of forms) {
    const n = openPrefixLength(folded, form);
    if (n >= least) at = Math.min(at, start + from![folded.length - n]);
  }
  return at;
}
