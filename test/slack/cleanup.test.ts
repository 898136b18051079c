import { sandboxName } from "@duet/shared";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startedForTests } from "../helpers/lifecycle.ts";
import { envelope, type FakeSlack, postEvent, startFakeSlack, userMessage } from "../fakes/slack/index.ts";
import type { Stack } from "../helpers/stack.ts";
import { answerTo, type BotHandle, mention, newChannel, SIGNING_SECRET, startBot, startSlackSetup } from "./harness.ts";

/**
 * Archiving or deleting a channel (public or private) empties its room in the
 * real Worker, and every thread room under it; removing Duet from a workspace
 * empties every room it had there.
 */

let stack: Stack;
let slack: FakeSlack;
let channelBot: BotHandle;
let threadBot: BotHandle;

// Tool servers on a local address that refuses connections: listing them fails at once, which is all these tests need.
startedForTests(() => startSlackSetup([{}, { DUET_SLACK_ROOM_SCOPE: "thread" }], { vars: { DUET_TOOLS_ALLOW_PRIVATE: "1" } }), (s) => ({ stack, slack, bots: [channelBot, threadBot] } = s));

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

/** A room's cleanup empties its history first and then destroys its sandbox, so an empty room can still have one for a moment. */
async function sandboxGone(roomId: string): Promise<void> {
  await expect.poll(() => stack.executor!.deleted, { timeout: 20_000, interval: 50 }).toContain(sandboxName(roomId));
}

const TOOL_URL = "http://127.0.0.1:1/mcp";

/** The workspace's servers are forgotten after its rooms (or 20 s pass). */
async function eventuallyNoServers(workspace: string): Promise<void> {
  const deadline = Date.now() + 20_000;
  while ((await stack.client.toolServers(workspace)).servers.length > 0) {
    if (Date.now() > deadline) throw new Error(`${workspace} still has tool servers`);
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
      for (const r of rooms) await sandboxGone(r);
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

describe("workspace cleanup (Duet uninstalled, or its bot token revoked)", () => {
  // A workspace of its own, so removing Duet from it cannot touch the rooms above.
  let gone: FakeSlack;
  let goneBot: BotHandle;
  let goneThreadBot: BotHandle;
  beforeAll(async () => {
    gone = await startFakeSlack({ teamId: "T0GONE" });
    goneBot = await startBot(gone, stack);
    goneThreadBot = await startBot(gone, stack, { DUET_SLACK_ROOM_SCOPE: "thread" });
  });
  afterAll(async () => {
    await goneBot?.stop();
    await goneThreadBot?.stop();
    await gone?.close();
  });

  /** Talk in two channels of the gone workspace, one of them only in a thread room. */
  async function talk(): Promise<string[]> {
    const [c1, c2] = [newChannel(), newChannel()];
    await answerTo(gone, await mention(gone, goneBot, { channel: c1, text: "SAY: here <run>echo x</run>" }));
    const parent = userMessage(gone, c2, "a thread");
    await answerTo(gone, await mention(gone, goneThreadBot, { channel: c2, text: "SAY: in a thread", threadTs: parent }));
    const rooms = [`slack-T0GONE-${c1}`, `slack-T0GONE-${c2}-${parent}`];
    for (const r of rooms) expect(await messagesIn(r)).toBe(2);
    return rooms;
  }

  it("revoking only a user's token leaves every room", async () => {
    const rooms = await talk();
    const barrier = newChannel();
    await answerTo(gone, await mention(gone, goneBot, { channel: barrier, text: "SAY: barrier" }));
    const revoked = envelope(gone, { type: "tokens_revoked", tokens: { oauth: ["U0SOMEONE"] } });
    expect((await postEvent(goneBot.url, revoked, { secret: SIGNING_SECRET })).status).toBe(200);
    // The barrier: an archive delivered after the revocation, seen done once its room is empty.
    const archived = envelope(gone, { type: "channel_archive", channel: barrier, user: "U0ADMIN" });
    expect((await postEvent(goneBot.url, archived, { secret: SIGNING_SECRET })).status).toBe(200);
    await eventuallyEmpty(`slack-T0GONE-${barrier}`);
    for (const r of rooms) expect(await messagesIn(r)).toBe(2);
  });

  it.each([
    ["app_uninstalled", { type: "app_uninstalled" }],
    ["tokens_revoked (the bot's token)", { type: "tokens_revoked", tokens: { bot: ["U0DUETBOT"] } }],
  ])("%s empties every room Duet had in that workspace and forgets its tool servers, and no other workspace's", async (_name, event) => {
    const rooms = await talk();
    const here = `slack-${slack.id.teamId}`;
    await stack.client.putToolServer("slack-T0GONE", "tracker", { url: TOOL_URL });
    await stack.client.putToolServer(here, "kept", { url: TOOL_URL });
    const elsewhere = newChannel();
    await answerTo(slack, await mention(slack, channelBot, { channel: elsewhere, text: "SAY: other workspace" }));

    expect((await postEvent(goneBot.url, envelope(gone, event), { secret: SIGNING_SECRET })).status).toBe(200);
    for (const r of rooms) await eventuallyEmpty(r);
    for (const r of rooms) await sandboxGone(r);
    await eventuallyNoServers("slack-T0GONE");
    expect(await messagesIn(room(elsewhere))).toBe(2);
    expect((await stack.client.toolServers(here)).servers.map((s) => s.name)).toContain("kept");
  });
});
