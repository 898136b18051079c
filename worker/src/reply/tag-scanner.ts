/**
 * Splits model text, fed in pieces as it streams, into plain text and complete
 * `<run>` tag bodies. Text that may be the start of a tag (`<`, `<ru`, `</ru`) is
 * held back until the next piece settles it, so no text handed out ever holds a
 * tag or part of one. A stray closing tag is dropped for the same reason.
 */
export type ScanItem = { kind: "text"; text: string } | { kind: "tag"; body: string };

const OPEN = "<run>";
const CLOSE = "</run>";

export class TagScanner {
  private buffer = "";
  private inTag = false;

  push(chunk: string): ScanItem[] {
    this.buffer += chunk;
    const items: ScanItem[] = [];
    for (;;) {
      const lower = this.buffer.toLowerCase();
      if (this.inTag) {
        const end = lower.indexOf(CLOSE);
        if (end < 0) break;
        items.push({ kind: "tag", body: this.buffer.slice(0, end) });
        this.buffer = this.buffer.slice(end + CLOSE.length);
        this.inTag = false;
        continue;
      }
      const open = lower.indexOf(OPEN);
      const stray = lower.indexOf(CLOSE);
      if (stray >= 0 && (open < 0 || stray < open)) {
        if (stray > 0) items.push({ kind: "text", text: this.buffer.slice(0, stray) });
        this.buffer = this.buffer.slice(stray + CLOSE.length);
        continue;
      }
      if (open < 0) break;
      if (open > 0) items.push({ kind: "text", text: this.buffer.slice(0, open) });
      this.buffer = this.buffer.slice(open + OPEN.length);
      this.inTag = true;
    }
    if (!this.inTag) {
      const keep = partialTagLength(this.buffer);
      const ready = this.buffer.slice(0, this.buffer.length - keep);
      if (ready) items.push({ kind: "text", text: ready });
      this.buffer = this.buffer.slice(ready.length);
    }
    return items;
  }

  /** The end of the text: held-back text is plain text after all; an open tag's body was cut off. */
  finish(): { items: ScanItem[]; unclosedBody: string | null } {
    const rest = this.buffer;
    this.buffer = "";
    if (this.inTag) return { items: [], unclosedBody: rest };
    return { items: rest ? [{ kind: "text", text: rest }] : [], unclosedBody: null };
  }
}

/** Length of the longest end of `text` that could still grow into `<run>` or `</run>`. */
function partialTagLength(text: string): number {
  const tail = text.slice(-CLOSE.length).toLowerCase();
  for (let n = Math.min(tail.length, CLOSE.length - 1); n > 0; n--) {
    const end = tail.slice(-n);
    if (OPEN.startsWith(end) || CLOSE.startsWith(end)) return n;
  }
  return 0;
}
