/**
 * A stream that passes bytes through until there are more than `max`, then
 * fails: a platform may declare one size and send more, and a file must never
 * be read whole to find out. The latest chunk is held back until the next one
 * arrives or the stream ends, so a receiver told the length up front never
 * gets a complete-looking body from a stream that then turned out too long.
 * Memory stays at two chunks.
 */

export class TooManyBytes extends Error {
  constructor(readonly max: number) {
    super(`more than ${max} bytes`);
    this.name = "TooManyBytes";
  }
}

/** `body` cut off with TooManyBytes past `max` bytes; `onOver` is told first, as the error may surface wrapped. */
export function limitBytes(body: ReadableStream<Uint8Array>, max: number, onOver: () => void = () => {}): ReadableStream<Uint8Array> {
  let seen = 0;
  let held: Uint8Array | null = null;
  return body.pipeThrough(
    new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        seen += chunk.byteLength;
        if (seen > max) {
          held = null;
          onOver();
          controller.error(new TooManyBytes(max));
          return;
        }
        if (held) controller.enqueue(held);
        held = chunk;
      },
      flush(controller) {
        if (held) controller.enqueue(held);
      },
    }),
  );
}
