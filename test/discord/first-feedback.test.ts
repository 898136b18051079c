import { describe, expect, it } from "vitest";
import { startedForTests } from "../helpers/lifecycle.ts";
import { startStack, type Stack } from "../helpers/stack.ts";
import { startWorkerTap, type WorkerTap } from "../helpers/worker-tap.ts";
import { type DiscordHarness, mentionAnswer, modelCallsFor, startDiscordHarness } from "./harness.ts";

/**
 * Typing is the first thing people see on a mention, and it does not wait for
 * the Worker: a question's claim is its ask. A tap between the bot and the
 * Worker holds every request until the typing is there.
 */

describe("first feedback on a Discord mention", () => {
  let stack: Stack;
  let tap: WorkerTap;
  let h: DiscordHarness;
  startedForTests(
    async () => {
      const s = await startStack();
      const t = await startWorkerTap(s.workerUrl);
      const harness = await startDiscordHarness({ workerUrl: t.url, token: s.token });
      return { s, t, harness, stop: async () => (await harness.stop(), await t.close(), await s.stop()) };
    },
    ({ s, t, harness }) => ((stack = s), (tap = t), (h = harness)),
  );

  it("shows typing while the Worker has not answered the ask (its claim) yet, then answers once it does", async () => {
    tap.hold((c) => c.path.startsWith("/api/"));
    const ch = h.fake.addChannel(h.guildId, "held");
    const msg = h.fake.message(ch, "SAY: typed-before-the-answer", { mention: true });
    const asked = () => tap.calls.find((c) => c.path.endsWith("/message") && (c.body as { idempotencyKey?: string })?.idempotencyKey === msg.id);
    await expect.poll(asked, { timeout: 20_000, interval: 20 }).toBeTruthy();
    await expect.poll(() => h.fake.calls.some((c) => c.path === `/channels/${ch}/typing`), { timeout: 20_000, interval: 20 }).toBe(true);
    // Typing is there and the ask is still held: it did not wait for the Worker.
    expect(asked()?.status).toBe(0);
    expect(tap.calls.filter((c) => c.path.startsWith("/api/claims/"))).toEqual([]);

    tap.release();
    const [answer, ...more] = await mentionAnswer(h, msg);
    expect(more).toEqual([]);
    expect(answer.content).toContain("typed-before-the-answer");
    expect(modelCallsFor(stack, "typed-before-the-answer")).toBe(1);
  });
});
