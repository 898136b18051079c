import { describe, expect, it } from "vitest";
import { startedForTests } from "../helpers/lifecycle.ts";
import { envelope, type FakeSlack, mentionEvent, postEvent } from "../fakes/slack/index.ts";
import { answerTo, type BotHandle, botReplies, mention, modelCallsFor, newChannel, readable, SIGNING_SECRET } from "../slack/harness.ts";
import { startWatchedSlackRig } from "./chat-rig.ts";
import type { PassThrough } from "./pass-through.ts";
import { type Rig, slackRoom } from "./rig.ts";
import { turn } from "./tally.ts";

/**
 * Deleting a room is final, however it is repeated and whatever comes after:
 * DELETE twice (at once, then again), a channel archived and then deleted, a
 * message after the DELETE. The room starts clean: no old history reaches the
 * thread or the model, no old file comes back in the sandbox.
 */

let rig: Rig;
let slack: FakeSlack;
let bot: BotHandle;
/** Between the bot and the Worker, to see when the bot's DELETEs have been answered. */
let toWorker: PassThrough;

startedForTests(startWatchedSlackRig, (started) => ({ rig, slack, bot, toWorker } = started));

/** A channel whose room has a turn in its history and a file in its sandbox. */
async function usedChannel(marker: string) {
  const channel = newChannel();
  const room = slackRoom(slack.id.teamId, channel);
  const t = turn("Slack mention before the room is deleted");
  const payload = mentionEvent(slack, { channel, text: `SAY: ${marker} <run>echo ${marker} > old.txt</run>` });
  await postEvent(bot.url, payload, { secret: SIGNING_SECRET });
  const ts = String(payload.event.ts);
  t.answered(await answerTo(slack, { channel, ts, threadTs: ts }));
  expect(rig.workspaceFile(room, "old.txt")).toBe(`${marker}\n`);
  return { channel, room, payload };
}

const rawDelete = async (room: string) => {
  const res = await fetch(`${rig.stack.workerUrl}/api/rooms/${room}`, { method: "DELETE", headers: { authorization: `Bearer ${rig.stack.token}` } });
  return { status: res.status, body: (await res.json()) as unknown };
};

/**
 * A new mention in the channel after the room was deleted. It must be answered
 * from a clean room: no old message in the history or in what the model was
 * sent, nothing in the sandbox but what the new turn made.
 */
async function expectCleanStart(channel: string, room: string, old: string): Promise<void> {
  const fresh = `fresh-${channel}`;
  const t = turn("Slack mention after the room was deleted");
  const m = await mention(slack, bot, { channel, text: `SAY: ${fresh} <run>ls -A</run>` });
  const replies = await answerTo(slack, m);
  t.answered(replies);
  const seen = readable(replies[0]);
  expect(seen).toContain(fresh);
  // `ls -A` in the room's sandbox found nothing: old.txt did not come back.
  expect(seen).toMatch(/`\$ ls -A`.*exit 0[\s\S]*\(no output\)/);
  expect(rig.workspaceFile(room, "old.txt")).toBeNull();
  const { messages } = await rig.stack.client.history(room);
  expect(messages.map((x) => x.text.split("\n")[0])).toEqual([`SAY: ${fresh} <run>ls -A</run>`, fresh]);
  const sent = rig.stack.model.calls.filter((c) => c.messages.at(-1)?.content.includes(fresh));
  expect(sent).toHaveLength(1);
  expect(JSON.stringify(sent[0].messages)).not.toContain(old);
}

describe("a deleted room stays deleted", () => {
  it("DELETE twice at once, then once more, then a late message: the room starts clean", async () => {
    const marker = `deleted-twice-${Date.now().toString(36)}`;
    const { channel, room } = await usedChannel(marker);

    const [a, b] = await Promise.all([rawDelete(room), rawDelete(room)]);
    const c = await rawDelete(room);
    for (const res of [a, b, c]) expect(res).toEqual({ status: 200, body: { cleaned: true, roomId: room } });
    expect((await rig.stack.client.history(room)).messages).toEqual([]);
    expect(rig.hasWorkspace(room)).toBe(false);

    await expectCleanStart(channel, room, marker);
  });

  it("archived, then deleted in Slack (two DELETEs through the bot), then a new mention: nothing old comes back", async () => {
    const marker = `archived-${Date.now().toString(36)}`;
    const { channel, room, payload } = await usedChannel(marker);
    for (const event of [{ type: "channel_archive", channel, user: "U0ADMIN" }, { type: "channel_deleted", channel }]) {
      const delivery = await postEvent(bot.url, envelope(slack, event), { secret: SIGNING_SECRET });
      expect(delivery.status).toBe(200);
    }
    // Cleanup has no trace in Slack: both DELETEs are seen answered on their way back to the bot.
    const deletes = () => toWorker.crossings.filter((c) => c.method === "DELETE" && c.path === `/api/rooms/${room}`);
    await expect.poll(() => deletes().filter((c) => c.status === 200).length, { timeout: 20_000, interval: 50 }).toBe(2);
    expect((await rig.stack.client.history(room)).messages).toEqual([]);
    expect(rig.hasWorkspace(room)).toBe(false);

    await expectCleanStart(channel, room, marker);
    // The old thread still has its one answer; nothing was posted there again.
    expect(botReplies(slack, channel, String(payload.event.ts))).toHaveLength(1);
    expect(modelCallsFor(rig.stack, `SAY: ${marker} <run>`)).toBe(1);
  });
});
