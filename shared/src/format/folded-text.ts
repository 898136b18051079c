/**
 * Text folded to what a reader takes from it, for finding a known secret
 * however it is spelled: ASCII letters lowercased; terminal escapes (ANSI
 * colours, cursor moves, OSC titles), control characters, invisible characters
 * (zero-width spaces and joiners, bidirectional controls, soft hyphens) and
 * whitespace dropped; separators people and tools put between characters
 * (`-` `_` `.` `:` `,` `;` `|` quotes, and the escapes `\n` `\r` `\t`) dropped;
 * `%41`, `\x41` and `\u0041` read as the character they stand for.
 *
 * A folded secret is still unique: a token of a dozen random characters or
 * more keeps more than enough of itself once case and separators are gone, so
 * ordinary text does not fold into one.
 */

import { INVISIBLE } from "../text/sanitize.ts";

/** The folded text and, when asked for, where each of its characters came from in the original. */
export interface Folded {
  text: string;
  /** from[i]: where the original spelling of text[i] starts. */
  from?: Int32Array;
  /** to[i]: just after the original spelling of text[i]. */
  to?: Int32Array;
}

const INVISIBLE_ONE = new RegExp(INVISIBLE.source);
const SEPARATORS = "-_.:,;|'\"`";
/** ASCII folded: -1 for what is dropped. */
const ASCII = Int16Array.from({ length: 128 }, (_, c) => {
  if (c <= 0x20 || c === 0x7f || SEPARATORS.includes(String.fromCharCode(c))) return -1;
  return c >= 0x41 && c <= 0x5a ? c + 32 : c;
});

function hexValue(text: string, at: number, n: number): number {
  if (at + n > text.length) return -1;
  let v = 0;
  for (let k = at; k < at + n; k++) {
    const d = parseInt(text[k], 16);
    if (Number.isNaN(d)) return -1;
    v = v * 16 + d;
  }
  return v;
}

/** The length of the terminal escape sequence that starts at `at` (an ESC). */
function escapeLength(text: string, at: number): number {
  const kind = text[at + 1];
  let i = at + 2;
  if (kind === "[") {
    // CSI: parameters, intermediates, one final byte.
    while (i < text.length && text.charCodeAt(i) >= 0x20 && text.charCodeAt(i) <= 0x3f) i++;
    return i < text.length && text.charCodeAt(i) >= 0x40 && text.charCodeAt(i) <= 0x7e ? i + 1 - at : i - at;
  }
  if (kind === "]") {
    // OSC: up to BEL or ESC \, never past the line.
    for (; i < text.length && text[i] !== "\n"; i++) {
      if (text[i] === "\u0007") return i + 1 - at;
      if (text[i] === "\u001b" && text[i + 1] === "\\") return i + 2 - at;
    }
    return i - at;
  }
  return kind === undefined ? 1 : 2;
}

/** The character `code` stands for once folded, or -1 when it is dropped. */
function foldChar(code: number): number {
  if (code < 0x80) return ASCII[code];
  if (code <= 0xa0) return -1; // C1 controls, NBSP
  if (INVISIBLE_ONE.test(String.fromCharCode(code))) return -1;
  if (code === 0x1680 || (code >= 0x2000 && code <= 0x200a) || code === 0x2028 || code === 0x2029 || code === 0x202f || code === 0x205f || code === 0x3000) return -1;
  return code;
}

/** `text` folded (see above); with `mapped`, each folded character's place in `text`. */
export function foldText(text: string, mapped = false): Folded {
  const codes = new Uint16Array(text.length);
  const from = mapped ? new Int32Array(text.length) : undefined;
  const to = mapped ? new Int32Array(text.length) : undefined;
  let n = 0;
  for (let i = 0; i < text.length; ) {
    const c = text.charCodeAt(i);
    let code = c;
    let len = 1;
    if (c === 0x1b) {
      i += escapeLength(text, i);
      continue;
    } else if (c === 0x25 /* % */) {
      const v = hexValue(text, i + 1, 2);
      if (v >= 0) [code, len] = [v, 3];
    } else if (c === 0x5c /* \ */) {
      const next = text[i + 1];
      if (next === "n" || next === "r" || next === "t") [code, len] = [-1, 2];
      else if (next === "x" && hexValue(text, i + 2, 2) >= 0) [code, len] = [hexValue(text, i + 2, 2), 4];
      else if (next === "u" && hexValue(text, i + 2, 4) >= 0) [code, len] = [hexValue(text, i + 2, 4), 6];
    }
    const folded = code < 0 ? -1 : foldChar(code);
    if (folded >= 0) {
      codes[n] = folded;
      if (from && to) {
        from[n] = i;
        to[n] = i + len;
      }
      n++;
    }
    i += len;
  }
  let out = "";
  // apply, not a spread: a spread of thousands of arguments is several times slower.
  for (let k = 0; k < n; k += 8192) out += String.fromCharCode.apply(null, codes.subarray(k, Math.min(n, k + 8192)) as unknown as number[]);
  return { text: out, ...(from && to ? { from: from.subarray(0, n), to: to.subarray(0, n) } : {}) };
}
