import { describe, expect, it } from "vitest";
import type { TurnStreamEvent } from "./schemas.ts";
import { encodeSseEvent, SSE_HEARTBEAT, SseDecoder } from "./sse.ts";

const events: TurnStreamEvent[] = [
  { event: "text", data: { delta: "Listing\nfiles: " } },
  { event: "run-start", data: { index: 0, cmd: "ls -la" } },
  { event: "run-end", data: { index: 0, cmd: "ls -la", exitCode: 0, durationMs: 12, stdout: "a\nb\n", stderr: "", truncated: false } },
  { event: "done", data: { reply: "Listing", messages: [], runs: [], stopped: true } },
];

describe("SSE framing of a live turn", () => {
  it("reads back every event whatever the pieces the bytes arrive in, skipping heartbeats", () => {
    const wire = events.map(encodeSseEvent).join(SSE_HEARTBEAT);
    for (const size of [1, 2, 7, 64, wire.length]) {
      const decoder = new SseDecoder();
      const out: TurnStreamEvent[] = [];
      for (let i = 0; i < wire.length; i += size) out.push(...decoder.push(wire.slice(i, i + size)));
      expect(out).toEqual(events);
    }
  });

  it("accepts CRLF line ends, and refuses unknown events and bodies that do not match", () => {
    expect(new SseDecoder().push('event: text\r\ndata: {"delta":"hi"}\r\n\r\n')).toEqual([{ event: "text", data: { delta: "hi" } }]);
    expect(() => new SseDecoder().push('event: surprise\ndata: {}\n\n')).toThrow(/unknown stream event "surprise"/);
    expect(() => new SseDecoder().push('event: run-start\ndata: {"index":"zero"}\n\n')).toThrow();
  });
});
