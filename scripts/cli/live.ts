import { type LiveAnswer, type MessageResponse, notRunNote, STOPPED_NOTE } from "@duet/shared";
import { inert, renderPending, renderRun, type Style } from "./render.ts";

/**
 * `duet ask` as the answer happens: the model's text is printed as it arrives,
 * each command's line when it starts, and its status and output when it ends.
 * Each update is the whole answer so far, redacted by the flow with its last
 * word held back (a secret is recognised only whole); only what is new is
 * printed, and the end of the turn prints the held-back rest.
 */
export class LivePrinter {
  /** The (redacted) text printed so far. */
  private printed = "";
  private atLineStart = true;
  private started = new Set<number>();
  private ended = new Set<number>();
  private last: LiveAnswer | null = null;

  constructor(
    private readonly write: (text: string) => void,
    private readonly style: Style,
  ) {}

  /** False until the first update: an answer that came whole (a Worker without streams) is printed whole. */
  get live(): boolean {
    return this.last !== null;
  }

  update(answer: LiveAnswer): void {
    this.last = answer;
    const fresh = answer.runs.filter((r) => !this.started.has(r.index) || (r.state === "done" && !this.ended.has(r.index)));
    this.printText(answer);
    for (const run of fresh) {
      if (!this.started.has(run.index)) {
        this.started.add(run.index);
        this.line(`${this.style.bold(this.style.cyan(inert(`$ ${run.cmd}`)))} ${this.style.dim("running…")}`);
      }
      if (run.state === "done") {
        this.ended.add(run.index);
        // The command line is already printed: its status and output follow.
        this.line(renderRun(run.result, this.style).split("\n").slice(1).join("\n"));
      }
    }
  }

  /**
   * A notice while the answer runs (Ctrl-C's "Stopping…"), on a line of its own:
   * a line the answer's text left open is ended first. That text always ends
   * at a word's end (the last word waits for what follows it), so the notice
   * never cuts a word, and the text goes on from the next line.
   */
  notice(print: (line: string) => void, text: string): void {
    if (!this.atLineStart) this.write("\n");
    this.atLineStart = true;
    print(text);
  }

  /** The end of the turn: the rest of the text (`ended`, the last live answer whole), then what the answer adds (commands not run, a stop). */
  finish(res: MessageResponse, ended?: LiveAnswer): void {
    if (ended) this.printText(ended);
    if (res.skipped?.length) this.line(this.style.yellow(notRunNote(res, res.skipped.map((c) => inert(c)))));
    if (res.stopped) this.line(this.style.yellow(STOPPED_NOTE));
    if (res.pending?.length) this.line(`\n${renderPending(res.pending, this.style)}`);
    if (!this.atLineStart) this.write("\n");
  }

  private printText(answer: LiveAnswer): void {
    const text = inert(answer.text);
    let same = 0;
    while (same < this.printed.length && same < text.length && text[same] === this.printed[same]) same++;
    // Text held back (the last word) that was already printed at a command's start: nothing new.
    if (same === text.length) return;
    // Redaction can rewrite text already printed once more arrives (a secret recognised
    // late); a terminal cannot take it back, so what differs is printed again on a new line.
    const restart = same < this.printed.length;
    const fresh = text.slice(same);
    this.printed = text;
    this.write(`${restart && !this.atLineStart ? "\n" : ""}${fresh}`);
    this.atLineStart = fresh.endsWith("\n");
  }

  private line(text: string): void {
    this.write(`${this.atLineStart ? "" : "\n"}${text}\n`);
    this.atLineStart = true;
  }
}
