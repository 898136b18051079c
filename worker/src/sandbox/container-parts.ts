/**
 * Sending bytes into a container through @cloudflare/sandbox. The SDK streams
 * a write only over its RPC transport; over HTTP a write is one base64
 * request. So a stream goes in parts of PART_BYTES (the caller holds one at a
 * time), each its own file, for a shell command in the container to join.
 */

/** One part: large enough that a 25 MiB upload is 25 requests, small enough to hold in a Worker. */
export const PART_BYTES = 1024 * 1024;

/** What writing a part needs from a sandbox (its stub, or the Sandbox object itself). */
export interface PartWriter {
  writeFile(path: string, content: string, options: { encoding: "base64" }): Promise<unknown>;
}

/**
 * Writes `body` as `<prefix>.0`, `<prefix>.1`, … and returns their names in
 * order. `each` sees every part before it is sent (a size check that throws
 * stops the write there). On failure the parts already written are in
 * `written`, for the caller to remove.
 */
export async function writeParts(box: PartWriter, prefix: string, body: ReadableStream<Uint8Array>, written: string[], each?: (part: Uint8Array) => void | Promise<void>): Promise<string[]> {
  for await (const part of inParts(body, PART_BYTES)) {
    await each?.(part);
    const name = `${prefix}.${written.length}`;
    await box.writeFile(name, toBase64(part), { encoding: "base64" });
    written.push(name);
  }
  return written;
}

/** `body` in pieces of exactly `size` bytes (the last one shorter). */
async function* inParts(body: ReadableStream<Uint8Array>, size: number): AsyncGenerator<Uint8Array> {
  let buffer = new Uint8Array(size);
  let filled = 0;
  for await (const chunk of body as unknown as AsyncIterable<Uint8Array>) {
    for (let at = 0; at < chunk.byteLength; ) {
      const n = Math.min(size - filled, chunk.byteLength - at);
      buffer.set(chunk.subarray(at, at + n), filled);
      filled += n;
      at += n;
      if (filled === size) {
        yield buffer;
        buffer = new Uint8Array(size);
        filled = 0;
      }
    }
  }
  if (filled > 0) yield buffer.subarray(0, filled);
}

export function toBase64(bytes: Uint8Array): string {
  let text = "";
  for (let i = 0; i < bytes.length; i += 0x8000) text += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(text);
}
