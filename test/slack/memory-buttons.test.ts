import { describe, expect, it } from "vitest";
import type { SlackMessage } from "../fakes/slack/index.ts";
import { startedForTests } from "../helpers/lifecycle.ts";
import type { Stack } from "../helpers/stack.ts";
import { answerTo, type BotHandle, bodyText, click, mention, newChannel, readable, slash, slashResponse, startSlackSetup } from "./harness.ts";
import type { FakeSlack } from "../fakes/slack/index.ts";

/**
 * The room's memory buttons end to end, the real bolt app against the fake
 * Slack and the real Worker: `/duet reset` in a room with pinned facts asks
 * which (keep them, wipe them, cancel), and a fact the model proposes
 * (`<remember>`) is pinned only by a person's Pin click.
 */

let stack: Stack;
let slack: FakeSlack;
let bot: BotHandle;
// A summary is due as soon as one turn has left the model's window, so a room that chats a little keeps one.
startedForTests(() => startSlackSetup([{}], { vars: { DUET_SUMMARY_TOKENS: "1" } }), (s) => ({ stack, slack, bots: [bot] } = s));

const roomOf = (channel: string) => `slack-${slack.id.teamId}-${channel}`;
const facts = async (channel: string) => (await stack.client.memory(roomOf(channel))).facts.map((f) => f.text);
const buttonsOf = (msg: SlackMessage) => (msg.blocks ?? []).filter((b) => b.type === "actions").flatMap((b) => b.elements as { action_id: string; value: string }[]);
const valueOf = (msg: SlackMessage, actionId: string) => buttonsOf(msg).find((e) => e.action_id === actionId)!.value;

async function duet(channel: string, text: string, user = "U0ALICE") {
  const { fields } = await slash(slack, bot, channel, text, user);
  return bodyText(await slashResponse(slack, fields));
}

/** `/duet reset` in a room with facts: the question message as posted, with its buttons. */
async function askReset(channel: string): Promise<SlackMessage> {
  await slash(slack, bot, channel, "reset", "U0ALICE");
  const asked = await slack.waitFor(() => slack.ws.channel(channel).find((m) => buttonsOf(m).some((b) => b.action_id === "duet_reset_keep")), "the reset's question");
  return structuredClone(asked);
}

/** Clicks `actionId` on `msg` as `user`; resolves once the message no longer shows buttons, or a private line reached the clicker. */
async function press(channel: string, msg: SlackMessage, actionId: string, user = "U0BOB", value = valueOf(msg, actionId)) {
  const privateBefore = slack.ws.ephemeral.length;
  const before = JSON.stringify(slack.ws.find(channel, msg.ts)!.blocks);
  expect((await click(slack, bot, { channel, messageTs: msg.ts, actionId, value, user })).status).toBe(200);
  return slack.waitFor(() => {
    const now = slack.ws.find(channel, msg.ts)!;
    const changed = JSON.stringify(now.blocks) !== before;
    const told = slack.ws.ephemeral.slice(privateBefore).find((e) => e.channel === channel && e.user === user);
    return changed ? { shown: readable(now), told: undefined } : told ? { shown: undefined, told: readable(told) } : undefined;
  }, `the click on ${actionId}`);
}

async function chat(channel: string, text: string) {
  const m = await mention(slack, bot, { channel, text, user: "U0ALICE" });
  const replies = await answerTo(slack, m);
  return structuredClone(replies.at(-1)!);
}

describe("Slack: /duet reset in a room with pinned facts", () => {
  it("resets at once when nothing is pinned", async () => {
    const channel = newChannel();
    expect(await duet(channel, "reset")).toContain("<@U0ALICE> reset Duet here: the conversation history is cleared");
  });

  it("asks which; 'Reset, keep memory' wipes the history and keeps the facts, and the question's buttons go", async () => {
    const channel = newChannel();
    await duet(channel, "remember staging runs on port 8443");
    await chat(channel, "SAY: history before the reset");
    const asked = await askReset(channel);
    expect(readable(asked)).toContain("<@U0ALICE> asked to reset Duet here");
    expect(readable(asked)).toContain('This room also keeps 1 pinned fact: "Reset, keep memory" keeps it, "Reset everything" wipes it too.');
    expect(buttonsOf(asked).map((b) => b.action_id)).toEqual(["duet_reset_keep", "duet_reset_wipe", "duet_reset_cancel"]);
    // Nothing happens until someone chooses.
    expect((await stack.client.history(roomOf(channel))).messages.length).toBeGreaterThan(0);

    // Another person who may reset chooses (anyone who may reset may answer the question).
    const { shown } = await press(channel, asked, "duet_reset_keep", "U0BOB");
    expect(shown).toContain("<@U0BOB> reset Duet here: the conversation history is cleared and the sandbox is removed. The pinned facts and the summary of earlier conversation are kept.");
    expect(buttonsOf(slack.ws.find(channel, asked.ts)!)).toEqual([]);
    expect(await facts(channel)).toEqual(["staging runs on port 8443"]);
    expect((await stack.client.history(roomOf(channel))).messages).toEqual([]);
  });

  it("'Reset everything' wipes the facts too; 'Cancel' changes nothing", async () => {
    const channel = newChannel();
    await duet(channel, "remember make test needs --jobs 2");
    await chat(channel, "SAY: kept until the reset");
    const cancelled = await press(channel, await askReset(channel), "duet_reset_cancel");
    expect(cancelled.shown).toContain("<@U0BOB> cancelled the reset; nothing was changed.");
    expect(await facts(channel)).toEqual(["make test needs --jobs 2"]);
    expect((await stack.client.history(roomOf(channel))).messages.length).toBeGreaterThan(0);

    const { shown } = await press(channel, await askReset(channel), "duet_reset_wipe");
    expect(shown).toContain("The pinned facts and the summary of earlier conversation are wiped too.");
    expect(await facts(channel)).toEqual([]);
    expect((await stack.client.history(roomOf(channel))).messages).toEqual([]);
  });

  it("asks too in a room that keeps only a summary, saying so: 'Reset, keep memory' keeps it, 'Reset everything' wipes it", async () => {
    const channel = newChannel();
    // Six turns: the first leaves the model's window of five, and the room's model summarises it.
    for (let i = 0; i < 6; i++) await chat(channel, `SAY: noted: turn ${i} of the summary test`);
    await expect.poll(async () => (await stack.client.memory(roomOf(channel))).summary, { timeout: 60_000, interval: 100 }).toBe(true);
    const asked = await askReset(channel);
    expect(readable(asked)).toContain("either way the conversation history is cleared and the sandbox is removed.");
    expect(readable(asked)).toContain('This room also keeps a summary of its earlier conversation: "Reset, keep memory" keeps it, "Reset everything" wipes it too.');

    const kept = await press(channel, asked, "duet_reset_keep");
    expect(kept.shown).toContain("The pinned facts and the summary of earlier conversation are kept.");
    expect((await stack.client.history(roomOf(channel))).messages).toEqual([]);
    expect((await stack.client.memory(roomOf(channel))).summary).toBe(true);

    const wiped = await press(channel, await askReset(channel), "duet_reset_wipe");
    expect(wiped.shown).toContain("The pinned facts and the summary of earlier conversation are wiped too.");
    expect((await stack.client.memory(roomOf(channel))).summary).toBeUndefined();
    // With nothing left to keep, a reset no longer asks.
    expect(await duet(channel, "reset")).toContain("<@U0ALICE> reset Duet here: the conversation history is cleared");
  });

  it("resets once: a second click on the question, or a click on an older one, is told so and changes nothing", async () => {
    const channel = newChannel();
    await duet(channel, "remember one");
    const first = await askReset(channel);
    const second = structuredClone(first);
    await press(channel, first, "duet_reset_keep");
    await duet(channel, "remember two");
    // The old question's Reset everything, clicked after the room was reset: the facts stay.
    const stale = await press(channel, second, "duet_reset_wipe", "U0CAROL");
    expect(stale.told).toContain("Duet was already reset here after this was asked, so nothing was reset again");
    expect(await facts(channel)).toEqual(["one", "two"]);
    expect((await stack.client.audit(roomOf(channel))).entries.filter((e) => e.kind === "reset")).toHaveLength(1);
  });

  it("ignores forged reset buttons: another room's value, a malformed one", async () => {
    const channel = newChannel();
    const other = newChannel();
    await duet(channel, "remember kept");
    await duet(other, "remember other room's fact");
    const asked = await askReset(channel);
    const forged = JSON.stringify({ room: roomOf(other), resetAt: 0 });
    for (const value of [forged, "not json", JSON.stringify({ room: roomOf(channel), resetAt: "soon" }), "x".repeat(3000)]) {
      expect((await click(slack, bot, { channel, messageTs: asked.ts, actionId: "duet_reset_wipe", value, user: "U0BOB" })).status).toBe(200);
    }
    // A barrier: a real click after the forged ones is answered, and only it acted.
    await press(channel, asked, "duet_reset_cancel");
    expect(await facts(channel)).toEqual(["kept"]);
    expect(await facts(other)).toEqual(["other room's fact"]);
  });
});

describe("Slack: facts the model proposes", () => {
  it("shows a <remember> fact with Pin and Dismiss; Pin pins it in the clicker's name; nothing is pinned before", async () => {
    const channel = newChannel();
    const answer = await chat(channel, "SAY: Noted. <remember>the flaky test is test_upload</remember>");
    expect(readable(answer)).not.toContain("<remember>");
    expect(readable(answer)).toContain("Duet proposes pinning this fact (nothing is pinned until someone clicks Pin):");
    expect(readable(answer)).toContain("`the flaky test is test_upload`");
    expect(await facts(channel)).toEqual([]);

    const { shown } = await press(channel, answer, "duet_fact_pin", "U0BOB");
    expect(shown).toContain("<@U0BOB> pinned `the flaky test is test_upload` as fact 1.");
    expect(buttonsOf(slack.ws.find(channel, answer.ts)!)).toEqual([]);
    const listed = await duet(channel, "memory");
    expect(listed).toMatch(/1\. `the flaky test is test_upload` pinned by [^\n]+ on \d{4}-\d\d-\d\d/);
    expect((await stack.client.memory(roomOf(channel))).facts[0].pinnedBy).toBe("U0BOB");

    // A second click on the same button: told, nothing pinned twice.
    const again = await press(channel, answer, "duet_fact_pin", "U0CAROL");
    expect(again.told).toContain("no longer offered here");
    expect(await facts(channel)).toEqual(["the flaky test is test_upload"]);
  });

  it("Dismiss pins nothing (a later memory list proves it), and a click after a reset pins nothing", async () => {
    const channel = newChannel();
    const answer = await chat(channel, "SAY: <remember>dismiss me</remember> <remember>reset takes me</remember>");
    const { shown } = await press(channel, answer, "duet_fact_dismiss");
    expect(shown).toContain("<@U0BOB> dismissed `dismiss me`; nothing was pinned.");
    expect(await duet(channel, "memory")).toContain("Nothing is pinned here yet.");

    await duet(channel, "reset");
    const late = await press(channel, answer, "duet_fact_pin", "U0BOB", buttonsOf(answer).filter((b) => b.action_id === "duet_fact_pin")[1].value);
    expect(late.told).toContain("no longer offered here");
    expect(await duet(channel, "memory")).toContain("Nothing is pinned here yet.");
  });

  it("offers at most 3 facts, none empty or oversized, and ignores a forged proposal button", async () => {
    const channel = newChannel();
    const many = Array.from({ length: 5 }, (_, i) => `<remember>fact ${i + 1}</remember>`).join(" ");
    const answer = await chat(channel, `SAY: ok <remember> </remember> <remember>${"y".repeat(600)}</remember> ${many}`);
    expect(buttonsOf(answer).filter((b) => b.action_id === "duet_fact_pin")).toHaveLength(3);
    expect(readable(answer)).toContain("Fact must be at most 500 characters");
    const other = newChannel();
    const forged = JSON.stringify({ room: roomOf(other), id: JSON.parse(valueOf(answer, "duet_fact_pin")).id });
    for (const value of [forged, "{}", JSON.stringify({ room: roomOf(channel), id: "../../x" })]) {
      expect((await click(slack, bot, { channel, messageTs: answer.ts, actionId: "duet_fact_pin", value, user: "U0BOB" })).status).toBe(200);
    }
    // Barrier: a real Dismiss after the forged Pins is answered; nothing was pinned.
    await press(channel, answer, "duet_fact_dismiss");
    expect(await facts(channel)).toEqual([]);
  });
});
