import { describe, expect, it } from "vitest";
import { snowflake } from "../fakes/discord/index.ts";
import { startedForTests } from "../helpers/lifecycle.ts";
import { releaseHeld } from "../helpers/model-control.ts";
import { startStack, type Stack } from "../helpers/stack.ts";
import { type DiscordHarness, interactionAnswer, startDiscordHarness } from "./harness.ts";

/**
 * First words on Discord: the deferred reply of `/duet ask` shows the model's
 * first words while the model still writes, and the words after them follow
 * at once, not an interval later. The fake model writes one piece at a time,
 * each let go by the test; the bot's live interval is set far longer than the
 * test, so only the edit right after the first can carry the second piece.
 */

let stack: Stack;
let h: DiscordHarness;
startedForTests(
  async () => {
    const s = await startStack();
    const harness = await startDiscordHarness(s, { liveIntervalMs: 10 * 60_000 });
    return { s, harness, stop: async () => (await harness.stop(), await s.stop()) };
  },
  ({ s, harness }) => ((stack = s), (h = harness)),
);

const EDIT = "PATCH /webhooks/:app/:token/messages/:message";

describe("a short live answer on Discord", () => {
  it("edits the deferred reply with the first words while the model holds, then with the second piece while it still writes", async () => {
    const step = `discord-grow-${Date.now()}`;
    // Pieces of 8: "Let me l", "ook at t", "he build", … The model holds before each piece after the first.
    const answer = "Let me look at the build and then the tests, one by one.";
    const channel = h.fake.addChannel(h.guildId, `grow-${snowflake()}`);
    const rec = h.fake.interaction(channel, { subcommand: "ask", options: { prompt: `STEP:${step} CHUNK:8 SAY: ${answer}` } });
    const edits = () => h.fake.calls.filter((c) => c.route === EDIT && c.path.includes(rec.token)).map((c) => String(c.body?.content ?? ""));
    // The model wrote one piece and holds: the deferred reply already shows it.
    await expect.poll(() => edits().some((e) => e.includes("Let me")), { timeout: 20_000, interval: 20 }).toBe(true);
    expect(edits().some((e) => e.includes("look"))).toBe(false);

    await releaseHeld(stack.model, `${step}.1`);
    // The model now holds before its third piece: this edit came while it was still writing.
    await expect.poll(() => edits().some((e) => e.includes("look")), { timeout: 20_000, interval: 20 }).toBe(true);
    expect(edits().some((e) => e.includes("build"))).toBe(false);

    const pieces = Math.ceil(answer.length / 8);
    for (let i = 2; i <= pieces; i++) await releaseHeld(stack.model, `${step}.${i}`);
    const { text } = await interactionAnswer(h, rec);
    expect(text).toContain(answer);
  }, 60_000);
});
