import { describe, expect, it } from "vitest";
import { SseDecoder, type TurnStreamEvent } from "@duet/shared";
import { sseResponse, sseStream } from "./sse.ts";
import { TurnChannel } from "./turn-channel.ts";

const text = (delta: string): TurnStreamEvent => ({ event: "text", data: { delta } });
const done: TurnStreamEvent = { event: "done", data: { reply: "hi", messages: [], runs: [] } };

/** Reads SSE bytes as they come: events, and how many heartbeat comments arrived. */
function reader(stream: ReadableStream<Uint8Array>) {
  const r = stream.getReader();
  const decoder = new SseDecoder();
  const bytes = new TextDecoder();
  const state = { heartbeats: 0, events: [] as TurnStreamEvent[], ended: false };
  return {
    state,
    cancel: () => r.cancel(),
    /** Reads until `until` holds or the stream ends. */
    async readUntil(until: () => boolean) {
      while (!until() && !state.ended) {
        const { value, done: end } = await r.read();
        if (end) state.ended = true;
        else {
          const chunk = bytes.decode(value, { stream: true });
          state.heartbeats += chunk.split(": keep-alive\n\n").length - 1;
          state.events.push(...decoder.push(chunk));
        }
      }
    },
  };
}

describe("the SSE writer", () => {
  it("answers text/event-stream and writes each event as it comes, then ends", async () => {
    const channel = new TurnChannel();
    const res = sseResponse(channel.subscribe());
    expect(res.headers.get("content-type")).toMatch(/^text\/event-stream/);
    const r = reader(res.body!);
    channel.publish(text("one"));
    await r.readUntil(() => r.state.events.length === 1);
    expect(r.state.events).toEqual([text("one")]);
    channel.publish(text("two"));
    channel.publish(done);
    await r.readUntil(() => false);
    expect(r.state.events).toEqual([text("one"), text("two"), done]);
  });

  it("writes a heartbeat comment while no event comes", async () => {
    const channel = new TurnChannel();
    const r = reader(sseStream(channel.subscribe(), 5));
    channel.publish(text("before"));
    // The turn stays silent until a heartbeat was read: the end can only come after one.
    await r.readUntil(() => r.state.heartbeats > 0);
    channel.publish(done);
    await r.readUntil(() => false);
    expect(r.state.heartbeats).toBeGreaterThan(0);
    expect(r.state.events).toEqual([text("before"), done]);
  });

  it("a client that hangs up stops reading; the turn goes on and others still get all of it", async () => {
    const channel = new TurnChannel();
    const first = reader(sseStream(channel.subscribe()));
    channel.publish(text("a"));
    await first.readUntil(() => first.state.events.length === 1);
    await first.cancel();
    channel.publish(text("b"));
    channel.publish(done);
    const late = reader(sseStream(channel.subscribe()));
    await late.readUntil(() => false);
    expect(late.state.events).toEqual([text("a"), text("b"), done]);
    expect(first.state.events).toEqual([text("a")]);
  });
});

describe("a turn's channel", () => {
  it("gives a subscriber that joins late the events so far, then the rest, and ends after the last", async () => {
    const channel = new TurnChannel();
    channel.publish(text("a"));
    const seen: TurnStreamEvent[] = [];
    const follow = (async () => {
      for await (const e of channel.subscribe()) seen.push(e);
    })();
    channel.publish(text("b"));
    channel.publish(done);
    channel.publish(text("after the end"));
    await follow;
    expect(seen).toEqual([text("a"), text("b"), done]);
    expect(channel.ended).toBe(true);
  });
});
