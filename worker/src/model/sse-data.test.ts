import { describe, expect, it } from "vitest";
import { parseEvent, sseData } from "./sse-data.ts";

/** `text` as a body arriving in the given pieces (cut anywhere, even inside a character). */
function body(...pieces: (string | Uint8Array)[]): ReadableStream<Uint8Array> {
  return new ReadableStream({
    start(controller) {
      for (const p of pieces) controller.enqueue(typeof p === "string" ? new TextEncoder().encode(p) : p);
      controller.close();
    },
  });
}

async function collect(data: AsyncIterable<string>): Promise<string[]> {
  const out: string[] = [];
  for await (const d of data) out.push(d);
  return out;
}

describe("reading a model's SSE body", () => {
  it("joins lines and events split across chunks, CRLF included, and skips comments", async () => {
    const got = await collect(sseData(body('data: {"a"', ':1}\r', "\n\r\n: keep-alive\n\nda", 'ta: {"b":2}\n', "\n")));
    expect(got).toEqual(['{"a":1}', '{"b":2}']);
    // A CRLF cut between its two bytes ends one line, not the event.
    expect(await collect(sseData(body("data: one\r", "\ndata: two\r\n\r\n")))).toEqual(["one\ntwo"]);
  });

  it("keeps a character whose bytes arrive in two chunks", async () => {
    const bytes = new TextEncoder().encode('data: {"t":"é"}\n\n');
    const cut = bytes.indexOf(0xc3) + 1;
    expect(await collect(sseData(body(bytes.slice(0, cut), bytes.slice(cut))))).toEqual(['{"t":"é"}']);
  });

  it("stops at [DONE] and cancels the rest of the body, and reads a last event without its blank line", async () => {
    let cancelled = false;
    const endless = new ReadableStream<Uint8Array>({
      start: (c) => c.enqueue(new TextEncoder().encode('data: {"x":1}\n\ndata: [DONE]\n\ndata: {"after":true}\n\n')),
      cancel: () => void (cancelled = true),
    });
    expect(await collect(sseData(endless))).toEqual(['{"x":1}']);
    expect(cancelled).toBe(true);
    expect(await collect(sseData(body('data: {"last":1}')))).toEqual(['{"last":1}']);
  });

  it("refuses an event that is not JSON, and says what an error event says", () => {
    expect(parseEvent('{"choices":[]}')).toEqual({ choices: [] });
    expect(() => parseEvent("not json")).toThrow(expect.objectContaining({ code: "model_error", message: "the model endpoint sent a stream event that is not JSON" }));
    expect(() => parseEvent('{"error":{"message":"context length exceeded"}}')).toThrow("the model endpoint reported an error: context length exceeded");
    expect(() => parseEvent('{"error":"overloaded"}')).toThrow("the model endpoint reported an error: overloaded");
  });
});
