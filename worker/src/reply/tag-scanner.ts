/**
 * Splits model text, fed in pieces as it streams, into plain text and complete
 * `<run>`, `<attach>`, `<pr>`, `<remember>` and `<tool …>` tag bodies (a tool tag's body starts
 * after `<tool`: its attributes, `>`, then the arguments). Text that may be the start of a tag (`<`,
 * `<ru`, `</att`) is held back until the next piece settles it, so no text handed
 * out ever holds a tag or part of one. A stray closing tag is dropped for the
 * same reason.
 */
export type TagName = "run" | "attach" | "pr" | "remember" | "tool";
export type ScanItem = { kind: "text"; text: string } | { kind: "tag"; body: string; tag: TagName };

const TAGS: TagName[] = ["run", "attach", "pr", "remember", "tool"];
/** A tool tag carries its name as an attribute: `<tool name="…">` opens it as `<tool>` does. */
const TOOL_OPEN_WITH_ATTRS = "<tool ";
const MARKS = [...TAGS.flatMap((t) => [`<${t}>`, `</${t}>`]), TOOL_OPEN_WITH_ATTRS];

/** The earliest of `marks` in `lower` at or after 0: its index and which. */
function earliest(lower: string, marks: string[]): { at: number; mark: string } | null {
  let best: { at: number; mark: string } | null = null;
  for (const mark of marks) {
    const at = lower.indexOf(mark);
    if (at >= 0 && (!best || at < best.at)) best = { at, mark };
  }
  return best;
}

export class TagScanner {
  private buffer = "";
  /** The tag whose body is being read, if any. */
  private inTag: TagName | null = null;

  push(chunk: string): ScanItem[] {
    this.buffer += chunk;
    const items: ScanItem[] = [];
    for (;;) {
      const lower = this.buffer.toLowerCase();
      if (this.inTag) {
        const close = `</${this.inTag}>`;
        const end = lower.indexOf(close);
        if (end < 0) break;
        items.push({ kind: "tag", body: this.buffer.slice(0, end), tag: this.inTag });
        this.buffer = this.buffer.slice(end + close.length);
        this.inTag = null;
        continue;
      }
      const found = earliest(lower, MARKS);
      if (!found) break;
      if (found.at > 0) items.push({ kind: "text", text: this.buffer.slice(0, found.at) });
      // A tool tag's body keeps what follows `<tool` (its attributes and the `>`), for the name in it.
      const opensTool = found.mark === "<tool>" || found.mark === TOOL_OPEN_WITH_ATTRS;
      this.buffer = this.buffer.slice(found.at + (opensTool ? "<tool".length : found.mark.length));
      // An opening tag starts a body; a stray closing one is dropped.
      if (opensTool) this.inTag = "tool";
      else if (!found.mark.startsWith("</")) this.inTag = found.mark.slice(1, -1) as TagName;
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
    const open = this.inTag;
    this.buffer = "";
    this.inTag = null;
    // An <attach> cut off names no file, a <pr> cut off asks for nothing, a <remember> cut off no whole fact: nothing to say about any.
    if (open) return { items: [], unclosedBody: open === "run" ? rest : null };
    return { items: rest ? [{ kind: "text", text: rest }] : [], unclosedBody: null };
  }
}

const LONGEST_MARK = Math.max(...MARKS.map((m) => m.length));

/** Length of the longest end of `text` that could still grow into a tag (`<run>`, `</attach>`, ...). */
function partialTagLength(text: string): number {
  const tail = text.slice(-LONGEST_MARK).toLowerCase();
  for (let n = Math.min(tail.length, LONGEST_MARK - 1); n > 0; n--) {
    const end = tail.slice(-n);
    if (MARKS.some((m) => m.startsWith(end))) return n;
  }
  return 0;
}
