import { endBeforeBlank, openPrivateKeyAt, openShapeAt, openVariantAt } from "@duet/shared";

/** A quoted value after `=` or `:` (`"password": "two words"`): redaction hides it whole, blanks included. */
const QUOTED_VALUE = /[=:][ \t]*(["'])/g;

/**
 * Redaction for text that arrives in pieces. A secret split across two pieces
 * must never go out, so only whole words leave: the text up to the last
 * whitespace is redacted and what that adds to what already went out is handed
 * on. Held longer: a private key block until its END line (its redaction starts
 * at BEGIN), a quoted value after `=` or `:` until it closes, the start of a
 * literal secret that has a blank in it, text that ends in what may be the first
 * part of a literal secret (or one of its spellings) split by a blank or a line
 * break, and a line that ends in what may be the first part of a known token
 * shape broken over lines.
 *
 * Every rule of redactSecrets stays within a line except private key blocks and
 * copies or tokens broken over lines (held above until they close, and a line
 * whose redaction alone differs from what went out never settles), so
 * once a line is complete and out, and no key block before it is open, the text
 * up to it is settled: only the open line (and a held key block) is redacted
 * again per piece, and a long answer costs linear time, not quadratic. A literal
 * secret holding a line break would cross that line, so with one configured
 * nothing settles and the whole text is redacted again each time.
 *
 * The text's last word goes out too when a blank is known to follow it (the
 * model wrote "word " and the blank waits for the text after it): the holds
 * are asked as if each blank that may come followed, so the first words of an
 * answer need not wait for the model's next piece. A word still being written
 * waits: part of one may be the first half of a secret.
 *
 * Should redacting more text ever change what already went out, nothing more
 * is streamed: the final answer, redacted whole, still is.
 */
export class StreamRedactor {
  /** The text not yet settled: it starts at a line nothing later can change the redaction of. */
  private raw = "";
  /** What went out for raw[0, released). */
  private sent = "";
  private released = 0;
  /** Just after raw's last whitespace: nothing goes out past it before the end. */
  private wordEnd = 0;
  private diverged = false;
  private readonly settles: boolean;
  /** Literal secrets a word boundary could split. */
  private readonly spacedSecrets: string[];
  /** Literal secrets a line break could split (a copy broken over lines). */
  private readonly secrets: string[];

  /**
   * `redact` is redactSecrets with `literalSecrets` (the Worker's own values).
   * The secrets are passed again because one with a blank or a line break in it
   * could be split where text goes out or settles.
   */
  constructor(
    private readonly redact: (text: string) => string,
    literalSecrets: readonly string[],
  ) {
    // Trimmed as redactSecrets trims them; short ones are kept, which only holds more.
    const secrets = literalSecrets.map((s) => s.trim()).filter(Boolean);
    this.settles = !secrets.some((s) => s.includes("\n"));
    this.spacedSecrets = secrets.filter((s) => /\s/.test(s));
    this.secrets = secrets.filter((s) => !/\s/.test(s));
  }

  /**
   * What goes out once `piece` is added; `blank`, when not empty, comes after
   * the text so far (not yet written), so its last word is whole.
   */
  push(piece: string, blank = ""): string {
    const from = this.raw.length;
    this.raw += piece;
    for (let i = this.raw.length - 1; i >= from; i--) {
      if (/\s/.test(this.raw[i])) {
        this.wordEnd = i + 1;
        break;
      }
    }
    const end = blank ? this.beforeBlank(blank) : this.releasable(this.raw, this.wordEnd);
    // Only the blank after a word that already went out: it goes with the next word, not in a redaction of its own.
    const out = /^\s*$/.test(this.raw.slice(this.released, end)) ? "" : this.release(end);
    this.settle();
    return out;
  }

  /** All the text pushed so far went out (redacted): nothing is held back. */
  get allOut(): boolean {
    return !this.diverged && this.released === this.raw.length;
  }

  /** The end of the text: whatever was held goes out, redacted. */
  finish(): string {
    return this.release(this.raw.length);
  }

  /**
   * How far raw may go out with `blank` after it. Spaces may still turn into a
   * line break: a token or a configured secret going on over lines holds then.
   * A hold inside the last word moves back to the start of its word.
   */
  private beforeBlank(blank: string): number {
    const lineHold = (text: string, end: number) => Math.min(openShapeAt(text, end, false), partialSecretAt(text, end, this.spacedSecrets));
    const at = endBeforeBlank(this.raw, blank, (text, end) => this.releasable(text, end), lineHold);
    return at === this.raw.length ? at : this.releasable(this.raw, wordStart(this.raw, at));
  }

  /**
   * How far `text` (raw, or raw and the blank that follows it) may go out when
   * words end at `end`. A hold moves the end back to the start of its word
   * (part of a word could read as a whole secret), and the holds are asked
   * again from there: cutting a closed key block in two opens it.
   */
  private releasable(text: string, end: number): number {
    for (;;) {
      let at = end;
      const key = openPrivateKeyAt(text.slice(0, at));
      if (key >= 0) at = key;
      at = openQuoteAt(text, at);
      at = partialSecretAt(text, at, this.spacedSecrets);
      at = openVariantAt(text, at, this.secrets);
      at = openShapeAt(text, at);
      if (at === end) return end;
      end = wordStart(text, at);
    }
  }

  private release(end: number): string {
    if (this.diverged || end <= this.released) return "";
    const redacted = this.redact(this.raw.slice(0, end));
    if (!redacted.startsWith(this.sent)) {
      this.diverged = true;
      return "";
    }
    const out = redacted.slice(this.sent.length);
    this.sent = redacted;
    this.released = end;
    return out;
  }

  /** Drops the complete lines that went out from what is redacted again. */
  private settle(): void {
    if (!this.settles || this.diverged || this.released === 0) return;
    const cut = this.raw.lastIndexOf("\n", this.released - 1) + 1;
    if (cut === 0) return;
    const head = this.raw.slice(0, cut);
    // A key block open in the head may close later, which changes how all of it reads.
    if (openPrivateKeyAt(head) >= 0) return;
    const done = this.redact(head);
    // Line-local redaction makes this always true; should it not be, nothing settles.
    if (!this.sent.startsWith(done)) return;
    this.raw = this.raw.slice(cut);
    this.sent = this.sent.slice(done.length);
    this.released -= cut;
    this.wordEnd -= cut;
  }
}

/** Just inside a quoted value still open on the line that text[0, end) ends in; `end` when there is none. */
function openQuoteAt(text: string, end: number): number {
  const lineStart = end === 0 ? 0 : text.lastIndexOf("\n", end - 1) + 1;
  const line = text.slice(lineStart, end);
  QUOTED_VALUE.lastIndex = 0;
  for (let m = QUOTED_VALUE.exec(line); m; m = QUOTED_VALUE.exec(line)) {
    const inside = m.index + m[0].length;
    // Every opening is tried, also one inside an earlier quote: the rule may start a match there.
    if (line.indexOf(m[1], inside) < 0) return lineStart + inside;
    QUOTED_VALUE.lastIndex = m.index + 1;
  }
  return end;
}

/** The start of the longest end of text[0, end) that begins one of `secrets` without completing it; `end` when none. */
function partialSecretAt(text: string, end: number, secrets: readonly string[]): number {
  let at = end;
  for (const secret of secrets) {
    for (let n = Math.min(secret.length - 1, end); n > 0; n--) {
      if (text.startsWith(secret.slice(0, n), end - n)) {
        at = Math.min(at, end - n);
        break;
      }
    }
  }
  return at;
}

/** Just after the last whitespace before `at`: where the word `at` is in begins. */
function wordStart(text: string, at: number): number {
  for (let i = at - 1; i >= 0; i--) if (/\s/.test(text[i])) return i + 1;
  return 0;
}
