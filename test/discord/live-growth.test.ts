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
 * A piece that ends in a blank shows its last word at once: the blank says the
 * word is whole, so it need not wait for the model's next piece.
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

/** Asks for `answer` in pieces of `chunk`, the model holding before each after the first; `rest(from)` lets pieces from `from` on go and waits for the answer. */
function stepped(name: string, chunk: number, answer: string) {
  const step = `discord-${name}-${Date.now()}`;
  const channel = h.fake.addChannel(h.guildId, `${name}-${snowflake()}`);
  const rec = h.fake.interaction(channel, { subcommand: "ask", options: { prompt: `STEP:${step} CHUNK:${chunk} SAY: ${answer}` } });
  const edits = () => h.fake.calls.filter((c) => c.route === EDIT && c.path.includes(rec.token)).map((c) => String(c.body?.content ?? ""));
  const shown = (words: string) => expect.poll(() => edits().some((e) => e.includes(words)), { timeout: 20_000, interval: 20 }).toBe(true);
  const rest = async (from: number) => {
    for (let i = from; i <= Math.ceil(answer.length / chunk); i++) await releaseHeld(stack.model, `${step}.${i}`);
    const { text } = await interactionAnswer(h, rec);
    expect(text).toContain(answer);
  };
  return { step, edits, shown, rest };
}

describe("a short live answer on Discord", () => {
  it("edits the deferred reply with the first words while the model holds, then with the second piece while it still writes", async () => {
    // Pieces of 8: "Let me l", "ook at t", "he build", … The model holds before each piece after the first.
    const { step, edits, shown, rest } = stepped("grow", 8, "Let me look at the build and then the tests, one by one.");
    // The model wrote one piece and holds: the deferred reply already shows it.
    await shown("Let me");
    expect(edits().some((e) => e.includes("look"))).toBe(false);

    await releaseHeld(stack.model, `${step}.1`);
    // The model now holds before its third piece: this edit came while it was still writing.
    await shown("look");
    expect(edits().some((e) => e.includes("build"))).toBe(false);
    await rest(2);
  }, 60_000);

  it("edits the deferred reply with a first piece that ends in a blank while the model holds: its last word is whole", async () => {
    // Pieces of 9: "Checking ", "the build", " and then", … The model holds before each piece after the first.
    const { edits, shown, rest } = stepped("whole", 9, "Checking the build and then the tests pass.");
    await shown("Checking");
    expect(edits().some((e) => e.includes("the"))).toBe(false);
    await rest(1);
  }, 60_000);
});
