import { turnStreamEventSchemas, type TurnStreamEvent, type TurnStreamEventName } from "./schemas.ts";

/** SSE framing for a live turn, written once for the Worker (encode) and its clients (decode). */

/** `event: <name>` then one `data:` line (JSON never holds a raw newline), then a blank line. */
export function encodeSseEvent(e: TurnStreamEvent): string {
  return `event: ${e.event}\ndata: ${JSON.stringify(e.data)}\n\n`;
}

/** A comment line: ignored by every SSE reader, it keeps proxies from closing an idle stream. */
export const SSE_HEARTBEAT = ": keep-alive\n\n";

/** One SSE event as written: its name ("message" when none is given) and its data lines joined. */
export interface SseFrame {
  event: string;
  data: string;
}

/**
 * Reads SSE text fed in arbitrary pieces (a line or an event may be split
 * anywhere) and hands out whole events. Comments and events without data are
 * skipped, as every SSE reader skips them.
 */
export class SseFrames {
  private buffer = "";

  push(chunk: string): SseFrame[] {
    this.buffer += chunk;
    // A "\r" at the end may be the first half of "\r\n": it waits for the next piece.
    const whole = this.buffer.endsWith("\r") ? this.buffer.length - 1 : this.buffer.length;
    const text = this.buffer.slice(0, whole).replace(/\r\n?/g, "\n");
    const out: SseFrame[] = [];
    let start = 0;
    for (let end; (end = text.indexOf("\n\n", start)) >= 0; start = end + 2) {
      const frame = parseBlock(text.slice(start, end));
      if (frame) out.push(frame);
    }
    this.buffer = text.slice(start) + this.buffer.slice(whole);
    return out;
  }

  /** The last event when the stream ends without the blank line after it. */
  finish(): SseFrame | null {
    const rest = this.buffer.replace(/\r\n?/g, "\n");
    this.buffer = "";
    return parseBlock(rest);
  }
}

/**
 * Reads SSE text fed in arbitrary pieces and hands out whole, validated turn
 * events. An unknown event name or a body that does not match its schema
 * throws, so a client never renders half-understood data.
 */
export class SseDecoder {
  private frames = new SseFrames();

  push(chunk: string): TurnStreamEvent[] {
    return this.frames.push(chunk).map(({ event, data }) => {
      if (!(event in turnStreamEventSchemas)) throw new Error(`unknown stream event "${event}"`);
      const schema = turnStreamEventSchemas[event as TurnStreamEventName];
      return { event, data: schema.parse(JSON.parse(data)) } as TurnStreamEvent;
    });
  }
}

function parseBlock(block: string): SseFrame | null {
  let event = "message";
  const data: string[] = [];
  for (const line of block.split("\n")) {
    if (line === "" || line.startsWith(":")) continue;
    const colon = line.indexOf(":");
    const field = colon < 0 ? line : line.slice(0, colon);
    const value = colon < 0 ? "" : line.slice(colon + 1).replace(/^ /, "");
    if (field === "event") event = value;
    else if (field === "data") data.push(value);
  }
  return data.length === 0 ? null : { event, data: data.join("\n") };
}
