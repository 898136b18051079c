import { turnStreamEventSchemas, type TurnStreamEvent, type TurnStreamEventName } from "./schemas.ts";

/** SSE framing for a live turn, written once for the Worker (encode) and its clients (decode). */

/** `event: <name>` then one `data:` line (JSON never holds a raw newline), then a blank line. */
export function encodeSseEvent(e: TurnStreamEvent): string {
  return `event: ${e.event}\ndata: ${JSON.stringify(e.data)}\n\n`;
}

/** A comment line: ignored by every SSE reader, it keeps proxies from closing an idle stream. */
export const SSE_HEARTBEAT = ": keep-alive\n\n";

/**
 * Reads SSE text fed in arbitrary pieces and hands out whole, validated turn
 * events. Comments are skipped; an unknown event name or a body that does not
 * match its schema throws, so a client never renders half-understood data.
 */
export class SseDecoder {
  private buffer = "";

  push(chunk: string): TurnStreamEvent[] {
    this.buffer += chunk.replace(/\r\n?/g, "\n");
    const out: TurnStreamEvent[] = [];
    for (let end; (end = this.buffer.indexOf("\n\n")) >= 0; ) {
      const block = this.buffer.slice(0, end);
      this.buffer = this.buffer.slice(end + 2);
      const e = parseBlock(block);
      if (e) out.push(e);
    }
    return out;
  }
}

function parseBlock(block: string): TurnStreamEvent | null {
  let name = "message";
  const data: string[] = [];
  for (const line of block.split("\n")) {
    if (line === "" || line.startsWith(":")) continue;
    const colon = line.indexOf(":");
    const field = colon < 0 ? line : line.slice(0, colon);
    const value = colon < 0 ? "" : line.slice(colon + 1).replace(/^ /, "");
    if (field === "event") name = value;
    else if (field === "data") data.push(value);
  }
  if (data.length === 0) return null;
  if (!(name in turnStreamEventSchemas)) throw new Error(`unknown stream event "${name}"`);
  const schema = turnStreamEventSchemas[name as TurnStreamEventName];
  return { event: name, data: schema.parse(JSON.parse(data.join("\n"))) } as TurnStreamEvent;
}
