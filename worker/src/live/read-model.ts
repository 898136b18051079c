import { ModelTextReader, type ReadReply } from "../reply/reader.ts";

export interface ModelAnswer {
  /** What the model wrote, tags included (all of it, or what came before a stop). */
  modelText: string;
  reply: ReadReply;
  /** The turn was stopped while the model wrote: none of its commands may run. */
  stopped: boolean;
}

/**
 * What the text read so far adds, once per piece: `delta` (may be empty) and
 * the blank that follows the text so far, written once more text comes, so
 * its last word is whole ("" when none).
 */
export type OnText = (delta: string, blank: string) => void;

/**
 * Reads the model's answer as it streams: each piece goes through the reader,
 * and the text it lets out (never a `<run>` tag or part of one) goes to
 * `onText` at once, also when a piece only adds the blank after a word. A stop
 * (`stop` aborted) keeps what was written so far.
 */
export async function readModelStream(pieces: AsyncIterable<string>, maxCommands: number, onText: OnText, stop: AbortSignal): Promise<ModelAnswer> {
  const reader = new ModelTextReader(maxCommands);
  let blank = "";
  const emit = (events: ReturnType<ModelTextReader["push"]>, after: string) => {
    let delta = "";
    for (const e of events) if (e.type === "text") delta += e.delta;
    if (delta || after !== blank) onText(delta, after);
    blank = after;
  };
  let modelText = "";
  let stopped = false;
  try {
    for await (const piece of pieces) {
      modelText += piece;
      const events = reader.push(piece);
      emit(events, reader.blankFollows);
    }
  } catch (err) {
    if (!stop.aborted || err !== stop.reason) throw err;
    stopped = true;
  }
  const end = reader.finish();
  emit(end.events, "");
  return { modelText, reply: end.reply, stopped };
}
