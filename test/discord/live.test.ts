import { LIVE_INTERVAL_MS, STOP_PREFIX } from "@duet/discord";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { FakeMessage, InteractionRecord } from "../fakes/discord/index.ts";
import { user, snowflake } from "../fakes/discord/index.ts";
import type { MessageEdit } from "../fakes/discord/world.ts";
import { startStack, type Stack } from "../helpers/stack.ts";
import { type DiscordHarness, fencesBalanced, interactionAnswer, mentionAnswer, startDiscordHarness } from "./harness.ts";

/**
 * Live answers on Discord, end to end: the real Worker streams a slowly written
 * answer from the fake model, the real discord.js bot edits it into the fake
 * Discord. Spacing is read from the times the fake recorded each edit, never
 * from the test's clock; "before the model finished" is proven by holding the model.
 */

let stack: Stack;
/** Streams (the default) and posts whole (DUET_STREAMING=off), each on its own fake Discord. */
let h: DiscordHarness;
let whole: DiscordHarness;

beforeAll(async () => {
  // A slow answer takes about 6 s of model time.
  stack = await startStack({ vars: { MODEL_TIMEOUT_MS: "30000" } });
  h = await startDiscordHarness(stack);
  whole = await startDiscordHarness(stack, { env: () => ({ DUET_STREAMING: "off" }) });
});
afterAll(async () => {
  await h?.stop();
  await whole?.stop();
  await stack?.stop();
});

const release = (name: string) => fetch(`${stack.model.url}/_release/${name}`, { method: "POST" });
const aborted = async (name: string, waitMs = 10_000) => ((await (await fetch(`${stack.model.url}/_aborted/${name}?waitMs=${waitMs}`)).json()) as { aborted: boolean }).aborted;

/** About 5 s of writing in pieces of 8 characters, then a command that runs for 2 s (the Worker runs commands after the text). */
const SLOW = "CHUNK:8 DRIP:250 SAY: Let me look at the build first, step by step, so nothing is missed.\n<run>sleep 2 && echo built-ok</run>\nThe build works and the tests pass, so the change is ready for review.";
// Drips for about 8 s, past 2,000 characters after about 5: the answer is still growing for more than two of the
// bot's 1.5 s edit intervals once a follow-up is due, so one is sent live even when the machine is loaded.
const LONG = `CHUNK:120 DRIP:300 SAY: Here is the whole script:\n\`\`\`bash\n${Array.from({ length: 80 }, (_, i) => `echo "step ${i} of the long build script"`).join("\n")}\n\`\`\`\nRun it from the repository root.`;

const contents = (msgs: FakeMessage[]) => msgs.map((m) => m.content.replace(/exit (\d+) · [\d.]+ m?s/g, "exit $1 · (time)"));
const gaps = (edits: MessageEdit[]) => edits.slice(1).map((e, i) => e.at - edits[i].at);
const editsOf = (harness: DiscordHarness, id: string) => harness.fake.edits.filter((e) => e.messageId === id);
/** Edits that showed a live state (under the Stop button; the final messages carry none): the ones the interval spaces. */
const liveEdits = (edits: MessageEdit[]) => edits.filter((e) => e.buttons.some((b) => b.startsWith(STOP_PREFIX)));

async function ask(harness: DiscordHarness, prompt: string, channel = harness.fake.addChannel(harness.guildId, `live-${snowflake()}`)) {
  return { channel, rec: harness.fake.interaction(channel, { subcommand: "ask", options: { prompt } }) };
}

const references = new Map<string, Promise<string[]>>();
/** The non-streamed bot's answer to `prompt`, asked once per prompt. */
function reference(prompt: string): Promise<string[]> {
  if (!references.has(prompt)) {
    references.set(prompt, (async () => contents((await interactionAnswer(whole, (await ask(whole, prompt)).rec)).messages))());
  }
  return references.get(prompt)!;
}

const shown = (rec: InteractionRecord) => [rec.original, ...rec.followups].filter((m): m is FakeMessage => m !== null);

describe("live answers on Discord", () => {
  it("edits the deferred reply before the model finishes, at least 3 times, never within 1.5 s, and ends as the non-streamed answer", async () => {
    const { rec } = await ask(h, `HOLD:discord-first ${SLOW}`);
    // The model is held after its first piece: whatever shows now came before it finished.
    await h.fake.waitForCall((c) => c.route === "PATCH /webhooks/:app/:token/messages/:message" && c.path.includes(rec.token) && String(c.body?.content).includes("Let me"));
    await release("discord-first");
    const { messages } = await interactionAnswer(h, rec);

    const edits = editsOf(h, rec.original!.id);
    expect(edits.length).toBeGreaterThanOrEqual(4);
    // The second edit follows the first at once (live-growth.test.ts); from it on, one every 1.5 s.
    expect(Math.min(...gaps(liveEdits(edits)).slice(1))).toBeGreaterThanOrEqual(LIVE_INTERVAL_MS);
    // The command showed as running under a Stop button; its exit code and output are in the final answer.
    const running = edits.find((e) => e.content.includes("⏳ `$ sleep 2 && echo built-ok` · running…"));
    expect(running?.buttons).toEqual([`${STOP_PREFIX}discord-${h.guildId}-${rec.channelId}`]);
    expect(contents(messages)).toEqual(await reference(SLOW));
    expect(messages.every((m) => !(m.components as unknown[] | undefined)?.length)).toBe(true);
  });

  it("continues past 2,000 characters in follow-ups without breaking a code block, ending as the non-streamed answer", async () => {
    const { rec } = await ask(h, LONG);
    const { messages } = await interactionAnswer(h, rec);
    expect(messages.length).toBeGreaterThan(1);
    for (const m of messages) {
      expect(m.content.length).toBeLessThanOrEqual(2000);
      expect(fencesBalanced(m.content)).toBe(true);
    }
    // A follow-up came while the answer grew (carrying the Stop button then), not only at the end.
    const liveFollowups = h.fake.calls.filter((c) => c.route === "POST /webhooks/:app/:token" && c.path.includes(rec.token) && JSON.stringify(c.body?.components ?? []).includes(STOP_PREFIX));
    expect(liveFollowups.length).toBeGreaterThan(0);
    expect(contents(messages)).toEqual(await reference(LONG));
  });

  it("loses nothing to a 429 while editing the reply to a mention", async () => {
    const channel = h.fake.addChannel(h.guildId, `live-429-${snowflake()}`);
    h.fake.rateLimitNext(1, { route: "PATCH /channels", retryAfterSeconds: 1 });
    const question = h.fake.message(channel, SLOW, { mention: true });
    const [reply] = await mentionAnswer(h, question);
    const limited = h.fake.calls.filter((c) => c.route === "PATCH /channels/:id/messages/:message" && c.status === 429);
    expect(limited).toHaveLength(1);
    expect(reply.message_reference).toMatchObject({ message_id: question.id });
    // At least two edits, so the spacing is measured over something (Math.min of nothing is Infinity).
    const spacing = gaps(liveEdits(editsOf(h, reply.id)));
    expect(spacing.length).toBeGreaterThan(0);
    expect(Math.min(...spacing)).toBeGreaterThanOrEqual(LIVE_INTERVAL_MS);
    expect(contents([reply])).toEqual((await reference(SLOW)).slice(0, 1));
  });

  it("never shows the bot's own token, in the growing reply or the final answer, even split across the model's pieces", async () => {
    // The Worker does not know the Discord token and no pattern matches it: only the flow's redaction, with the
    // bot's secrets, keeps it out. It arrives in pieces of 6 characters, and the command (shown running) prints it.
    const token = h.fake.token;
    const { rec } = await ask(h, `CHUNK:6 DRIP:120 SAY: The bot token is ${token} and that is all, said slowly so it streams.\n<run>echo ${token} && sleep 2</run>\nDone.`);
    const { text } = await interactionAnswer(h, rec);
    const live = shown(rec).flatMap((m) => editsOf(h, m.id)).map((e) => e.content);
    // The live reply carried the redacted token before the end, and the command's line with it.
    expect(live.some((c) => c.includes("The bot token is [redacted]") && !c.includes("Done."))).toBe(true);
    expect(live.some((c) => c.includes("`$ echo [redacted] && sleep 2` · running"))).toBe(true);
    expect(text).toContain("The bot token is [redacted]");
    expect(text).toContain("$ echo [redacted]");
    for (const shownText of [...live, text]) expect(shownText).not.toContain(token.slice(0, 8));
  });

  it("stops a turn from its Stop button, only in its own room, and from /duet stop", async () => {
    const a = await ask(h, "HANG:discord-stop-a CHUNK:10 SAY: Working on the first thing, still working");
    const b = await ask(h, "HANG:discord-stop-b CHUNK:10 SAY: Working on the second thing, still working");
    const liveOf = (rec: InteractionRecord) => h.fake.world.waitForCall((c) => c.path.includes(rec.token) && c.method === "PATCH" && c.status === 200);
    await liveOf(a.rec);
    await liveOf(b.rec);
    const roomA = `discord-${h.guildId}-${a.channel}`;
    const bob = user(snowflake(), "bob");

    // A button in B that names A's room (a forged click) stops nothing.
    const forged = h.fake.click(b.rec.original!, `${STOP_PREFIX}${roomA}`, bob);
    await h.fake.waitForCall((c) => c.path.startsWith(`/interactions/${forged.id}/`));
    expect(forged.original?.content).toContain("another conversation");
    expect(await aborted("discord-stop-a", 0)).toBe(false);

    // Bob clicks A's own button: A's model call is aborted and A's answer ends stopped, without the button.
    h.fake.click(a.rec.original!, `${STOP_PREFIX}${roomA}`, bob);
    expect(await aborted("discord-stop-a")).toBe(true);
    const { text } = await interactionAnswer(h, a.rec);
    expect(text).toContain("Stopped before it finished");
    expect(shown(a.rec).every((m) => !(m.components as unknown[] | undefined)?.length)).toBe(true);
    expect(await aborted("discord-stop-b", 0)).toBe(false);

    // /duet stop in B stops B.
    h.fake.interaction(b.channel, { subcommand: "stop" }, bob);
    expect(await aborted("discord-stop-b")).toBe(true);
    expect((await interactionAnswer(h, b.rec)).text).toContain("Stopped before it finished");
  });
});
