import { sandboxName } from "@duet/shared";
import { describe, expect, it } from "vitest";
import { startedForTests } from "../helpers/lifecycle.ts";
import { envelope, type FakeSlack, postEvent, userMessage } from "../fakes/slack/index.ts";
import type { Stack } from "../helpers/stack.ts";
import { answerTo, type BotHandle, mention, newChannel, SIGNING_SECRET, startSlackSetup } from "./harness.ts";

/**
 * Archiving or deleting a channel (public or private) empties its room in the
 * real Worker, and every thread room under it.
 */

let stack: Stack;
let slack: FakeSlack;
let channelBot: BotHandle;
let threadBot: BotHandle;

startedForTests(() => startSlackSetup([{}, { DUET_SLACK_ROOM_SCOPE: "thread" }]), (s) => ({ stack, slack, bots: [channelBot, threadBot] } = s));

const room = (channel: string, thread?: string) => `slack-${slack.id.teamId}-${channel}${thread ? `-${thread}` : ""}`;

async function messagesIn(roomId: string): Promise<number> {
  return (await stack.client.history(roomId)).messages.length;
}

/** Cleanup has no visible trace in Slack, so the Worker is asked until the room is empty (or 20 s pass). */
async function eventuallyEmpty(roomId: string): Promise<void> {
  const deadline = Date.now() + 20_000;
  while ((await messagesIn(roomId)) > 0) {
    if (Date.now() > deadline) throw new Error(`${roomId} still has messages`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** A channel with talk in its channel room and in two thread rooms, each with a sandbox. */
async function busyChannel(channel: string): Promise<string[]> {
  const top = await mention(slack, channelBot, { channel, text: "SAY: channel talk <run>echo in-channel</run>" });
  await answerTo(slack, top);
  const threads = [userMessage(slack, channel, "thread one"), userMessage(slack, channel, "thread two")];
  for (const t of threads) {
    const m = await mention(slack, threadBot, { channel, text: "SAY: thread talk <run>echo in-thread</run>", threadTs: t });
    await answerTo(slack, m);
  }
  const rooms = [room(channel), ...threads.map((t) => room(channel, t))];
  for (const r of rooms) expect(await messagesIn(r)).toBe(2);
  return rooms;
}

describe("channel cleanup", () => {
  it.each(["channel_archive", "channel_deleted", "group_archive", "group_deleted"])(
    "%s empties the channel room and its thread rooms, and nothing else",
    async (type) => {
      const channel = newChannel(type.startsWith("group") ? "G" : "C");
      const bystander = newChannel();
      const rooms = await busyChannel(channel);
      const other = await mention(slack, channelBot, { channel: bystander, text: "SAY: unrelated" });
      await answerTo(slack, other);

      const event = type.endsWith("archive") ? { type, channel, user: "U0ADMIN" } : { type, channel };
      const delivery = await postEvent(channelBot.url, envelope(slack, event), { secret: SIGNING_SECRET });
      expect(delivery.status).toBe(200);

      for (const r of rooms) await eventuallyEmpty(r);
      expect(await messagesIn(room(bystander))).toBe(2);
      // The sandboxes went with the rooms.
      for (const r of rooms) expect(stack.executor!.deleted).toContain(sandboxName(r));
    },
  );

  it("a repeated archive event is harmless", async () => {
    const channel = newChannel();
    const m = await mention(slack, channelBot, { channel, text: "SAY: short-lived" });
    await answerTo(slack, m);
    const payload = envelope(slack, { type: "channel_archive", channel, user: "U0ADMIN" });
    const first = await postEvent(channelBot.url, payload, { secret: SIGNING_SECRET });
    const retry = await postEvent(channelBot.url, payload, { secret: SIGNING_SECRET, retryNum: 1 });
    expect([first.status, retry.status]).toEqual([200, 200]);
    await eventuallyEmpty(room(channel));
  });
});
