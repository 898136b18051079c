import { applyLiveEvent, emptyLiveAnswer, type LiveAnswer, liveText, redactSecrets, type MessageResponse } from "@duet/shared";
import { inert, renderRun, type Style } from "./render.ts";

/**
 * `duet ask` as the answer happens: the model's text is printed as it arrives,
 * each command's line when it starts, and its status and output when it ends.
 * Text is redacted before it is printed, so the last word of what has arrived
 * waits for the next piece (a secret is recognised only whole); a command's
 * start, and the end of the turn, print everything before it.
 */
export class LivePrinter {
  private answer: LiveAnswer = emptyLiveAnswer();
  /** The (redacted) text printed so far. */
  private printed = "";
  private atLineStart = true;

  constructor(
    private readonly write: (text: string) => void,
    private readonly style: Style,
    private readonly secrets: readonly string[],
  ) {}

  event(e: { event: string; data: unknown }): void {
    this.answer = applyLiveEvent(this.answer, e);
    if (e.event === "text") return this.printText(false);
    if (e.event === "run-start") {
      this.printText(true);
      const { cmd } = e.data as { cmd: string };
      this.line(`${this.style.bold(this.style.cyan(inert(`$ ${redactSecrets(cmd, this.secrets)}`)))} ${this.style.dim("running…")}`);
    } else if (e.event === "run-end") {
      const run = this.answer.runs.find((r) => r.index === (e.data as { index: number }).index);
      if (run?.state === "done") this.line(renderRun(run.result, this.style, this.secrets).split("\n").slice(1).join("\n"));
    }
  }

  /** The end of the turn: the rest of the text, then what the answer adds (commands not run, a stop). */
  finish(res: MessageResponse & { stopped?: boolean }): void {
    this.printText(true);
    if (res.skipped?.length) this.line(this.style.yellow(`Not run (over the per-reply limit): ${res.skipped.map((c) => inert(redactSecrets(c, this.secrets))).join(", ")}`));
    if (res.stopped) this.line(this.style.yellow("(stopped)"));
    if (!this.atLineStart) this.write("\n");
  }

  private printText(final: boolean): void {
    const text = inert(liveText(this.answer, this.secrets, final));
    // Redaction can rewrite text already printed once more arrives (a secret recognised
    // late); a terminal cannot take it back, so what differs is printed again on a new line.
    let same = 0;
    while (same < this.printed.length && same < text.length && text[same] === this.printed[same]) same++;
    // Text held back (the last word) that was already printed at a command's start: nothing new.
    if (same === text.length) return;
    const fresh = text.slice(same);
    const restart = same < this.printed.length;
    this.printed = text;
    if (!fresh) return;
    this.write(`${restart && !this.atLineStart ? "\n" : ""}${fresh}`);
    this.atLineStart = fresh.endsWith("\n");
  }

  private line(text: string): void {
    this.write(`${this.atLineStart ? "" : "\n"}${text}\n`);
    this.atLineStart = true;
  }
}
