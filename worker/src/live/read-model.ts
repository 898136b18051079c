import { ModelTextReader, type ReadReply } from "../reply/reader.ts";

export interface ModelAnswer {
  /** What the model wrote, tags included (all of it, or what came before a stop). */
  modelText: string;
  reply: ReadReply;
  /** The turn was stopped while the model wrote: none of its commands may run. */
  stopped: boolean;
}

/**
 * Reads the model's answer as it streams: each piece goes through the reader,
 * and the text it lets out (never a `<run>` tag or part of one) goes to
 * `onText` at once. A stop (`stop` aborted) keeps what was written so far.
 */
export async function readModelStream(pieces: AsyncIterable<string>, maxCommands: number, onText: (delta: string) => void, stop: AbortSignal): Promise<ModelAnswer> {
  const reader = new ModelTextReader(maxCommands);
  const emit = (events: ReturnType<ModelTextReader["push"]>) => {
    for (const e of events) if (e.type === "text" && e.delta) onText(e.delta);
  };
  let modelText = "";
  let stopped = false;
  try {
    for await (const piece of pieces) {
      modelText += piece;
      emit(reader.push(piece));
    }
  } catch (err) {
    if (!stop.aborted || err !== stop.reason) throw err;
    stopped = true;
  }
  const end = reader.finish();
  emit(end.events);
  return { modelText, reply: end.reply, stopped };
}
