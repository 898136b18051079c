import { describe, expect, it } from "vitest";
import { ChannelPace } from "./channel-pace.ts";
import { ManualTimers } from "./manual-timers.ts";

/** Posts into a channel that take `latencyMs` of the manual clock; records when each started and ended. */
function channelPosts(timers: ManualTimers, latencyMs = 0) {
  const posts: { channel: string; text: string; start: number; end: number }[] = [];
  const post = (channel: string, text: string, fail = false) => () =>
    new Promise<string>((resolve, reject) => {
      const start = timers.now();
      timers.setTimeout(() => {
        posts.push({ channel, text, start, end: timers.now() });
        if (fail) reject(new Error(`refused ${text}`));
        else resolve(`ts-${text}`);
      }, latencyMs);
    });
  return { posts, post };
}

describe("ChannelPace", () => {
  it("starts the first message in a channel at once, then one at a time, a second after the previous one ended, in the order asked", async () => {
    const timers = new ManualTimers();
    const pace = new ChannelPace({ intervalMs: 1000, timers });
    const { posts, post } = channelPosts(timers, 200);
    const answers = ["a", "b", "c"].map((t) => pace.run("C1", post("C1", t)));
    await timers.advance(5000);
    expect(await Promise.all(answers)).toEqual(["ts-a", "ts-b", "ts-c"]);
    expect(posts.map((p) => [p.text, p.start])).toEqual([
      ["a", 0],
      ["b", 1200],
      ["c", 2400],
    ]);
  });

  it("lets a message that completes the one just posted go at once, and spaces the next new message from its end", async () => {
    const timers = new ManualTimers();
    const pace = new ChannelPace({ intervalMs: 1000, timers });
    const { posts, post } = channelPosts(timers, 200);
    await Promise.all([pace.run("C1", post("C1", "answer")), timers.advance(200)]);
    const share = pace.follow("C1", post("C1", "share"));
    const next = pace.run("C1", post("C1", "next"));
    await timers.advance(3000);
    expect(await share).toBe("ts-share");
    await next;
    expect(posts.map((p) => [p.text, p.start])).toEqual([
      ["answer", 0],
      ["share", 200],
      ["next", 1400],
    ]);
  });

  it("lets another channel post while one waits", async () => {
    const timers = new ManualTimers();
    const pace = new ChannelPace({ intervalMs: 1000, timers });
    const { posts, post } = channelPosts(timers);
    void pace.run("C1", post("C1", "a"));
    void pace.run("C1", post("C1", "b"));
    void pace.run("C2", post("C2", "other"));
    await timers.advance(0);
    expect(posts.map((p) => p.text)).toEqual(["a", "other"]);
    await timers.advance(1000);
    expect(posts.map((p) => p.text)).toEqual(["a", "other", "b"]);
  });

  it("passes a refusal on and still spaces the next message from it", async () => {
    const timers = new ManualTimers();
    const pace = new ChannelPace({ intervalMs: 1000, timers });
    const { posts, post } = channelPosts(timers, 100);
    const refused = pace.run("C1", post("C1", "a", true));
    const next = pace.run("C1", post("C1", "b"));
    await timers.advance(3000);
    await expect(refused).rejects.toThrow("refused a");
    await expect(next).resolves.toBe("ts-b");
    expect(posts[1].start - posts[0].end).toBe(1000);
  });

  it("lets the next message go when a call never answers, after the hold limit", async () => {
    const timers = new ManualTimers();
    const pace = new ChannelPace({ intervalMs: 1000, timers, holdMaxMs: 5000 });
    const { posts, post } = channelPosts(timers);
    void pace.run("C1", () => new Promise<never>(() => {}));
    void pace.run("C1", post("C1", "b"));
    await timers.advance(5999);
    expect(posts).toEqual([]);
    await timers.advance(1);
    expect(posts.map((p) => [p.text, p.start])).toEqual([["b", 6000]]);
  });

  it("leaves no timer behind once idle, and forgets idle channels as new ones come", async () => {
    const timers = new ManualTimers();
    const pace = new ChannelPace({ intervalMs: 1000, timers });
    const { post } = channelPosts(timers, 10);
    for (const t of ["a", "b"]) void pace.run("C1", post("C1", t));
    await timers.advance(2000);
    expect(timers.pending).toBe(0);
    for (let i = 0; i < 200; i++) await pace.run(`old-${i}`, async () => "ok");
    await timers.advance(2000);
    for (let i = 0; i < 100; i++) await pace.run(`new-${i}`, async () => "ok");
    expect(timers.pending).toBe(0);
    // The 200 channels last used 2 s ago hold nothing any more: only the new ones are kept.
    expect(pace.size).toBe(100);
  });

  describe("with a pace shared by other processes", () => {
    /** A shared pace whose answers the test gives by hand; records each channel asked. */
    function sharedSlots() {
      const asked: { channel: string; answer: (ms: number) => void; fail: () => void }[] = [];
      const ended: { channel: string; at: number }[] = [];
      const slots = {
        wait: (channel: string) => new Promise<number>((resolve, reject) => asked.push({ channel, answer: resolve, fail: () => reject(new Error("unreachable")) })),
        ended: (channel: string) => void ended.push({ channel, at: now() }),
      };
      let now = () => 0;
      return { asked, ended, slots, clock: (timers: ManualTimers) => (now = () => timers.now()) };
    }

    it("asks it once per new message when the message's turn comes here, and waits the slot it gives", async () => {
      const timers = new ManualTimers();
      const { asked, slots } = sharedSlots();
      const pace = new ChannelPace({ intervalMs: 1000, timers, slots });
      const { posts, post } = channelPosts(timers, 100);
      void pace.run("C1", post("C1", "a"));
      void pace.run("C1", post("C1", "b"));
      await timers.advance(0);
      // Only the first message's turn has come: the second is asked for after it, never before.
      expect(asked.map((a) => a.channel)).toEqual(["C1"]);
      asked[0].answer(700); // another process has the channel for 700 ms more
      await timers.advance(699);
      expect(timers.pending).toBe(1);
      await timers.advance(101);
      expect(posts.map((p) => [p.text, p.start])).toEqual([["a", 700]]);
      // This process still counts its own interval from the end of its call (800 + 1000), then asks again.
      await timers.advance(999);
      expect(asked).toHaveLength(1);
      await timers.advance(1);
      expect(asked).toHaveLength(2);
      asked[1].answer(0);
      await timers.advance(100);
      expect(posts.map((p) => [p.text, p.start])).toEqual([["a", 700], ["b", 1800]]);
    });

    it("goes on with its own pace alone when the shared one fails or does not answer in time", async () => {
      const timers = new ManualTimers();
      const { asked, slots } = sharedSlots();
      const pace = new ChannelPace({ intervalMs: 1000, timers, slots, askTimeoutMs: 1000 });
      const { posts, post } = channelPosts(timers);
      void pace.run("C1", post("C1", "a"));
      await timers.advance(0);
      asked[0].fail();
      await timers.advance(0);
      expect(posts.map((p) => [p.text, p.start])).toEqual([["a", 0]]);
      void pace.run("C2", post("C2", "silent"));
      await timers.advance(999);
      expect(posts).toHaveLength(1);
      await timers.advance(1);
      expect(posts.map((p) => [p.text, p.start])).toEqual([["a", 0], ["silent", 1000]]);
      // A late answer changes nothing.
      asked[1].answer(5000);
      await timers.advance(0);
      expect(timers.pending).toBe(0);
    });

    it("tells it when each new message's call ended, whether it went or was refused, so the next process counts from there", async () => {
      const timers = new ManualTimers();
      const { asked, ended, slots, clock } = sharedSlots();
      clock(timers);
      const pace = new ChannelPace({ intervalMs: 1000, timers, slots });
      const { post } = channelPosts(timers, 150);
      const a = pace.run("C1", post("C1", "a"));
      const b = pace.run("C1", post("C1", "b", true));
      await timers.advance(0);
      asked[0].answer(0);
      await timers.advance(149);
      expect(ended).toEqual([]);
      await timers.advance(1);
      expect(await a).toBe("ts-a");
      expect(ended).toEqual([{ channel: "C1", at: 150 }]);
      await timers.advance(1000);
      asked[1].answer(0);
      await timers.advance(150);
      await expect(b).rejects.toThrow("refused b");
      expect(ended).toEqual([{ channel: "C1", at: 150 }, { channel: "C1", at: 1300 }]);
    });
  });
});
