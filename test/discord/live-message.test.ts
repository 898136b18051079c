import { DiscordLiveMessage, interactionTarget, LIVE_INTERVAL_MS, type Logger, messageTarget, renderMessage, REST, Routes, STOP_PREFIX } from "@duet/discord";
import { applyLiveEvent, CHANNEL_MESSAGE_INTERVAL_MS, ChannelPace, emptyLiveAnswer, type LiveAnswer, type MessageResponse, type TurnStreamEvent } from "@duet/shared";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startFakeDiscord, type FakeDiscord } from "../fakes/discord/index.ts";
import type { MessageEdit } from "../fakes/discord/world.ts";
import { sleep } from "../fakes/http.ts";

/**
 * A live answer on the fake Discord, through discord.js's REST client: the
 * events of a slow answer arrive over a few seconds, as the Worker's stream
 * delivers them; the fake records when each edit arrived and what it showed.
 */

let fake: FakeDiscord;
let rest: REST;
let channel: string;
const pace = new ChannelPace({ intervalMs: CHANNEL_MESSAGE_INTERVAL_MS });
const logs: string[] = [];
const log: Logger = { info: () => {}, warn: (m) => logs.push(m), error: (m) => logs.push(m) };

beforeAll(async () => {
  fake = await startFakeDiscord();
  channel = fake.addChannel(fake.addGuild(), "general");
  rest = new REST({ api: fake.api, version: "10", globalRequestsPerSecond: 1_000 }).setToken(fake.token);
});
afterAll(async () => {
  await fake?.close();
});

const room = () => `discord-g-${channel}`;

/** Words every `everyMs`, a command that runs for a while in the middle, optionally a long code block. */
async function slowAnswer(live: DiscordLiveMessage, o: { everyMs?: number; words?: number; code?: string } = {}): Promise<{ answer: LiveAnswer; firstTokenAt: number }> {
  let answer = emptyLiveAnswer();
  const feed = (e: TurnStreamEvent) => {
    answer = applyLiveEvent(answer, e);
    live.update(answer);
  };
  const firstTokenAt = Date.now();
  const n = o.words ?? 24;
  for (let i = 0; i < n; i++) {
    feed({ event: "text", data: { delta: `word${i} ` } });
    if (i === 4) feed({ event: "run-start", data: { index: 0, cmd: "make build" } });
    if (i === 16) feed({ event: "run-end", data: { index: 0, cmd: "make build", exitCode: 2, durationMs: 2300, stdout: "", stderr: "error: missing target\n", truncated: false } });
    if (o.code && i === 8) feed({ event: "text", data: { delta: o.code } });
    await sleep(o.everyMs ?? 200);
  }
  return { answer, firstTokenAt };
}

function finalOf(answer: LiveAnswer): MessageResponse {
  const runs = answer.runs.flatMap((r) => (r.state === "done" ? [r.result] : []));
  return { reply: answer.text, explanation: answer.text.trim(), messages: [], runs };
}

const editsOf = (ids: string[]): MessageEdit[] => fake.edits.filter((e) => ids.includes(e.messageId));
/** Edits that showed a live state (under the Stop button; the final messages carry none): the ones the interval spaces. */
const liveEdits = (edits: MessageEdit[]): MessageEdit[] => edits.filter((e) => e.buttons.some((b) => b.startsWith(STOP_PREFIX)));
function gaps(edits: MessageEdit[]): number[] {
  return edits.slice(1).map((e, i) => e.at - edits[i].at);
}

async function deferred() {
  const rec = fake.interaction(channel, { subcommand: "ask", options: { question: "build it" } });
  await rest.post(Routes.interactionCallback(rec.id, rec.token), { body: { type: 5 } });
  return rec;
}

describe("a live answer on Discord", () => {
  it("edits the deferred reply soon after the first token, at least 3 times, never within 1.5 s, and ends as the non-streamed answer", async () => {
    const rec = await deferred();
    const live = new DiscordLiveMessage(interactionTarget(rest, pace, { applicationId: fake.applicationId, token: rec.token, channelId: channel }), log, { room: room() });
    const { answer, firstTokenAt } = await slowAnswer(live);
    const final = renderMessage(finalOf(answer));
    const id = await live.finish(final);

    const edits = editsOf([id!]);
    expect(edits[0].at - firstTokenAt).toBeLessThan(LIVE_INTERVAL_MS);
    expect(edits.length).toBeGreaterThanOrEqual(4);
    // The second edit follows the first as soon as it ended; from it on, one every 1.5 s.
    expect(Math.min(...gaps(liveEdits(edits)).slice(1))).toBeGreaterThanOrEqual(LIVE_INTERVAL_MS);
    // The command showed running, then its exit code and duration, with the Stop button until the end.
    expect(edits.some((e) => e.content.includes("⏳ `$ make build` · running…") && e.buttons[0] === `${STOP_PREFIX}${room()}`)).toBe(true);
    expect(edits.some((e) => e.content.includes("❌ `$ make build` · exit 2 · 2.3 s"))).toBe(true);
    expect(rec.original).toMatchObject({ content: final[0].content, components: [] });
    expect(rec.followups).toHaveLength(final.length - 1);
  });

  it("edits the final answer into place as soon as it is complete, without waiting out the interval after the last live edit", async () => {
    const rec = await deferred();
    const live = new DiscordLiveMessage(interactionTarget(rest, pace, { applicationId: fake.applicationId, token: rec.token, channelId: channel }), log, { room: room() });
    let answer = applyLiveEvent(emptyLiveAnswer(), { event: "text", data: { delta: "Building. " } });
    answer = applyLiveEvent(answer, { event: "run-start", data: { index: 0, cmd: "make" } });
    live.update(answer);
    await fake.world.waitForCall((c) => c.path.includes(rec.token) && c.method === "PATCH" && c.status === 200);
    answer = applyLiveEvent(answer, { event: "run-end", data: { index: 0, cmd: "make", exitCode: 0, durationMs: 120, stdout: "ok\n", stderr: "", truncated: false } });
    live.update(answer);
    const final = renderMessage(finalOf(answer));
    const id = await live.finish(final);
    const edits = editsOf([id!]);
    expect(liveEdits(edits)).toHaveLength(1);
    // The fake's own arrival times: the final edit did not wait for the interval to pass.
    expect(edits[1].at - edits[0].at).toBeLessThan(LIVE_INTERVAL_MS);
    expect(rec.original).toMatchObject({ content: final[0].content, components: [] });
  });

  it("continues past 2,000 characters in follow-ups without breaking a code block, and moves the Stop button along", async () => {
    const rec = await deferred();
    const code = "\n```bash\n" + Array.from({ length: 90 }, (_, i) => `echo step ${i} of the long build script`).join("\n") + "\n```\n";
    const live = new DiscordLiveMessage(interactionTarget(rest, pace, { applicationId: fake.applicationId, token: rec.token, channelId: channel }), log, { room: room() });
    const { answer } = await slowAnswer(live, { code, everyMs: 150 });
    const final = renderMessage(finalOf(answer));
    await live.finish(final);

    const shown = [rec.original!, ...rec.followups];
    expect(shown.length).toBeGreaterThan(1);
    expect(shown.map((m) => m.content)).toEqual(final.map((m) => m.content));
    for (const m of shown) expect((m.content.match(/```/g) ?? []).length % 2, m.content).toBe(0);
    // While it grew, the button sat on the newest message only.
    const ids = shown.map((m) => m.id);
    const withButton = fake.edits.filter((e) => ids.includes(e.messageId) && e.buttons.length > 0);
    expect(new Set(withButton.map((e) => e.messageId)).size).toBeGreaterThan(1);
    // The deferred reply's second edit follows its first at once; every other gap is the interval.
    for (const id of ids) expect(Math.min(Infinity, ...gaps(liveEdits(editsOf([id]))).slice(id === ids[0] ? 1 : 0))).toBeGreaterThanOrEqual(LIVE_INTERVAL_MS);
    expect(shown.every((m) => (m.components as unknown[]).length === 0)).toBe(true);
  });

  it("loses nothing to a 429 on an edit, and replies to a person's message the same way", async () => {
    const question = fake.message(channel, "build it", { mention: true });
    const live = new DiscordLiveMessage(messageTarget(rest, pace, channel, question.id), log, { room: room() });
    fake.rateLimitNext(1, { route: "PATCH /channels", retryAfterSeconds: 0.5 });
    const { answer } = await slowAnswer(live);
    const final = renderMessage(finalOf(answer));
    const id = await live.finish(final);

    const reply = fake.world.messages.get(id!)!;
    expect(reply).toMatchObject({ content: final[0].content, message_reference: { message_id: question.id } });
    const limited = fake.calls.filter((c) => c.route === "PATCH /channels/:id/messages/:message" && c.status === 429);
    expect(limited).toHaveLength(1);
    // At least two edits, so the spacing is measured over something (Math.min of nothing is Infinity).
    const spacing = gaps(liveEdits(editsOf([id!])));
    expect(spacing.length).toBeGreaterThan(0);
    expect(Math.min(...spacing)).toBeGreaterThanOrEqual(LIVE_INTERVAL_MS);
    expect(logs).toEqual([]);
  });
});
