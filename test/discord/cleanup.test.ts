import { describe, expect, it } from "vitest";
import { startedForTests } from "../helpers/lifecycle.ts";
import type { Stack } from "../helpers/stack.ts";
import { mentionAnswer, type DiscordHarness, startDiscordSetup } from "./harness.ts";

/**
 * Rooms deleted when Discord removes their place, for channels discord.js has
 * cached and for ones it never saw (whose events it drops).
 */

describe("Discord room cleanup", () => {
  let stack: Stack;
  let h: DiscordHarness;
  startedForTests(() => startDiscordSetup(), (s) => ({ stack, h } = s));

  const room = (channel: string, thread?: string) => `discord-${h.guildId}-${channel}${thread ? `-${thread}` : ""}`;
  /** Gives a room history and a sandbox, straight through the Worker (the bot cannot see uncached channels). */
  const fill = async (id: string) => {
    await stack.client.message(id, { text: `SAY: filling <run>echo ${id}</run>`, userId: "u1" });
    expect((await stack.client.history(id)).messages).toHaveLength(2);
  };
  const deletes = (id: string) => h.workerRequests.filter((r) => r.method === "DELETE" && r.path === `/api/rooms/${id}`).length;
  const history = async (id: string) => (await stack.client.history(id)).messages;

  it("archiving a thread empties the thread's room once, and leaves the channel's room alone", async () => {
    const ch = h.fake.addChannel(h.guildId, "archive");
    const th = h.fake.addThread(ch, "to archive");
    await mentionAnswer(h, h.fake.message(th, "SAY: in the thread <run>echo thread-work</run>", { mention: true }));
    await fill(room(ch));
    h.fake.archiveThread(th);
    await h.waitForLog(`cleaned ${room(ch, th)} (thread archived)`);
    expect(await history(room(ch, th))).toEqual([]);
    expect(await history(room(ch))).toHaveLength(2);
    expect(stack.executor!.deleted.some((s) => s.includes(room(ch, th)))).toBe(true);
    // discord.js emitted threadUpdate and the raw packet arrived too: still one DELETE.
    expect(deletes(room(ch, th))).toBe(1);
  });

  it("archiving a thread discord.js has not cached empties its room", async () => {
    const ch = h.fake.addChannel(h.guildId, "archive-uncached");
    const th = h.fake.addThread(ch, "unseen", { uncached: true });
    await fill(room(ch, th));
    h.fake.archiveThread(th);
    await h.waitForLog(`cleaned ${room(ch, th)} (thread archived)`);
    expect(await history(room(ch, th))).toEqual([]);
    expect(deletes(room(ch, th))).toBe(1);
  });

  it("deleting a thread empties its room, cached or not", async () => {
    const ch = h.fake.addChannel(h.guildId, "thread-delete");
    const cached = h.fake.addThread(ch, "seen");
    const uncached = h.fake.addThread(ch, "unseen", { uncached: true });
    await fill(room(ch, cached));
    await fill(room(ch, uncached));
    await fill(room(ch));
    h.fake.deleteThread(cached);
    h.fake.deleteThread(uncached);
    await h.waitForLog(`cleaned ${room(ch, cached)} (thread deleted)`);
    await h.waitForLog(`cleaned ${room(ch, uncached)} (thread deleted)`);
    expect(await history(room(ch, cached))).toEqual([]);
    expect(await history(room(ch, uncached))).toEqual([]);
    expect(await history(room(ch))).toHaveLength(2);
    expect(deletes(room(ch, cached))).toBe(1);
    expect(deletes(room(ch, uncached))).toBe(1);
  });

  it("deleting a channel empties its room and its thread rooms", async () => {
    const ch = h.fake.addChannel(h.guildId, "channel-delete");
    const th = h.fake.addThread(ch, "inside");
    const other = h.fake.addChannel(h.guildId, "bystander");
    await mentionAnswer(h, h.fake.message(ch, "SAY: channel work", { mention: true }));
    await mentionAnswer(h, h.fake.message(th, "SAY: thread work", { mention: true }));
    await fill(room(other));
    h.fake.deleteChannel(ch);
    await h.waitForLog(`cleaned ${room(ch)} (channel deleted)`);
    expect(await history(room(ch))).toEqual([]);
    expect(await history(room(ch, th))).toEqual([]);
    expect(await history(room(other))).toHaveLength(2);
    expect(deletes(room(ch))).toBe(1);
  });

  it("deleting a channel discord.js has not cached empties its room and its thread rooms", async () => {
    const ch = h.fake.addChannel(h.guildId, "uncached-channel", { uncached: true });
    const th = h.fake.addThread(ch, "uncached-thread", { uncached: true });
    await fill(room(ch));
    await fill(room(ch, th));
    h.fake.deleteChannel(ch);
    await h.waitForLog(`cleaned ${room(ch)} (channel deleted)`);
    expect(await history(room(ch))).toEqual([]);
    expect(await history(room(ch, th))).toEqual([]);
    expect(deletes(room(ch))).toBe(1);
  });

  it("a thread used again after its room was cleaned is cleaned again when archived again", async () => {
    const ch = h.fake.addChannel(h.guildId, "again");
    const th = h.fake.addThread(ch, "reopened");
    await mentionAnswer(h, h.fake.message(th, "SAY: first life", { mention: true }));
    h.fake.archiveThread(th);
    await h.waitForLog(`cleaned ${room(ch, th)} (thread archived)`);
    h.fake.unarchiveThread(th);
    await mentionAnswer(h, h.fake.message(th, "SAY: second life", { mention: true }));
    expect(await history(room(ch, th))).toHaveLength(2);
    h.fake.archiveThread(th);
    await expect.poll(() => deletes(room(ch, th)), { timeout: 20_000 }).toBe(2);
    await expect.poll(async () => (await history(room(ch, th))).length, { timeout: 20_000 }).toBe(0);
  });

  it("leaving a server (kicked, or the server deleted) empties every room there; an outage empties none", async () => {
    const { guildId: guild } = h.fake.joinGuild("leaving");
    await expect.poll(() => h.bot.client.guilds.cache.has(guild), { timeout: 10_000 }).toBe(true);
    const ch = h.fake.addChannel(guild, "general");
    const th = h.fake.addThread(ch, "a thread");
    await mentionAnswer(h, h.fake.message(ch, "SAY: server work <run>echo here</run>", { mention: true }));
    await mentionAnswer(h, h.fake.message(th, "SAY: thread work", { mention: true }));
    const rooms = [`discord-${guild}-${ch}`, `discord-${guild}-${ch}-${th}`];
    const bystander = h.fake.addChannel(h.guildId, "stays");
    await fill(room(bystander));

    h.fake.guildOutage(guild);
    // Wait until the outage was seen, then make sure it deleted nothing.
    await expect.poll(() => h.bot.client.guilds.cache.get(guild)?.available, { timeout: 10_000 }).toBe(false);
    for (const r of rooms) expect(await history(r)).toHaveLength(2);
    expect(deletes(`discord-${guild}`)).toBe(0);

    h.fake.removeFromGuild(guild);
    await h.waitForLog(`cleaned discord-${guild} (removed from the server)`);
    for (const r of rooms) expect(await history(r)).toEqual([]);
    for (const r of rooms) expect(stack.executor!.deleted).toContain(`sandbox-${r}`);
    expect(await history(room(bystander))).toHaveLength(2);
    expect(deletes(`discord-${guild}`)).toBe(1);
  });
});
