/**
 * A stream that passes bytes through until there are more than `max`, then
 * fails: a platform may declare one size and send more, and a file must never
 * be read whole to find out. Memory stays at one chunk in flight.
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
  return body.pipeThrough(
    new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        seen += chunk.byteLength;
        if (seen > max) {
          onOver();
          controller.error(new TooManyBytes(max));
        }
        else controller.enqueue(chunk);
      },
    }),
  );
}
