/**
 * The explanation as it is handed out. Whitespace is only written once text
 * follows it, so the explanation never starts or ends with blank space, a line
 * never ends in spaces, and blank lines never run to more than one. Because of
 * that, the text handed out piece by piece is exactly the final explanation.
 */
export class TextOut {
  private text = "";
  private pending = "";
  private newlines = 0;
  private spaces = "";

  write(s: string): void {
    for (const ch of s) {
      if (ch === "\n") {
        this.spaces = "";
        if (this.text) this.newlines++;
      } else if (ch === " " || ch === "\t") {
        if (this.text) this.spaces += ch;
      } else if (ch !== "\r") {
        const gap = "\n".repeat(Math.min(this.newlines, 2)) + this.spaces;
        this.newlines = 0;
        this.spaces = "";
        this.pending += gap + ch;
        this.text += gap + ch;
      }
    }
  }

  /** The text written since the last call. */
  take(): string {
    const out = this.pending;
    this.pending = "";
    return out;
  }

  /** The blank written after the text that waits for more text ("" when none): the text's last word is whole. */
  get blankPending(): string {
    return this.newlines > 0 ? "\n".repeat(Math.min(this.newlines, 2)) : this.spaces;
  }

  get all(): string {
    return this.text;
  }
}
