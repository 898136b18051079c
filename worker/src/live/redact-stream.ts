/** Text from here on is held until its block ends: a private key spans lines, and its redaction starts at BEGIN. */
const OPEN_KEY_BLOCK = /-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----(?![\s\S]*-----END [A-Z0-9 ]*PRIVATE KEY-----)/;

/**
 * Redaction for text that arrives in pieces. A secret split across two pieces
 * must never go out, so only whole words leave: the text up to the last
 * whitespace is redacted as a whole and what it adds to what already went out
 * is handed on. Secrets are single words (tokens, `NAME=value`, URL
 * credentials) or the value after a name; an unterminated private key block
 * is held entirely. Should redacting more text ever change what already went
 * out, nothing more is streamed: the final answer, redacted whole, still is.
 */
export class StreamRedactor {
  private raw = "";
  private sent = "";
  /** How much of the raw text `sent` covers: a release never goes back before it. */
  private released = 0;
  private diverged = false;

  constructor(private readonly redact: (text: string) => string) {}

  push(piece: string): string {
    this.raw += piece;
    let end = lastWhitespace(this.raw);
    const key = OPEN_KEY_BLOCK.exec(this.raw.slice(0, end));
    if (key) end = key.index;
    return this.release(this.raw.slice(0, end));
  }

  /** The end of the text: whatever was held goes out, redacted. */
  finish(): string {
    return this.release(this.raw);
  }

  private release(text: string): string {
    if (this.diverged || text.length <= this.released) return "";
    const redacted = this.redact(text);
    if (!redacted.startsWith(this.sent)) {
      this.diverged = true;
      return "";
    }
    const out = redacted.slice(this.sent.length);
    this.sent = redacted;
    this.released = text.length;
    return out;
  }
}

function lastWhitespace(text: string): number {
  for (let i = text.length - 1; i >= 0; i--) if (/\s/.test(text[i])) return i + 1;
  return 0;
}
