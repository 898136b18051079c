import { describe, expect, it } from "vitest";
import { dollars } from "@duet/shared";
import { startedForTests } from "../helpers/lifecycle.ts";
import { blockTexts, envelope, type FakeSlack, postEvent, validateBlocks } from "../fakes/slack/index.ts";
import type { Block } from "../fakes/slack/index.ts";
import type { Stack } from "../helpers/stack.ts";
import { answerTo, type BotHandle, mention, newChannel, SIGNING_SECRET, startSlackSetup } from "./harness.ts";

/**
 * The App Home tab through the real bolt app (two replicas), the fake Slack
 * and the real Worker: opening it publishes one view for that person naming
 * the channels they are in where Duet has a room, each with its model and
 * run policy, their use today and what is left of their budget; a second
 * replica draws the same view; 200 rooms still fit Slack's 100 blocks.
 */

let stack: Stack;
let slack: FakeSlack;
let bots: BotHandle[];

const VARS = { DUET_MODELS: "fake-model,large=openai:fake-large@2/8", DUET_USER_DAILY_TOKENS: "50000", DUET_USER_DAILY_USD: "5" };
startedForTests(() => startSlackSetup([{}, {}], { vars: VARS }), (s) => ({ stack, slack, bots } = s));

const room = (channel: string) => `slack-${slack.id.teamId}-${channel}`;
const member = (channel: string, ...users: string[]) => slack.ws.members.set(channel, new Set([...(slack.ws.members.get(channel) ?? []), ...users]));

/** `user` opens Duet's Home tab (through `bot`); answers the view Slack then shows them. */
async function openHome(user: string, bot: BotHandle, extra: Record<string, unknown> = {}): Promise<Block[]> {
  const before = slack.ws.publishes.length;
  const delivery = await postEvent(bot.url, envelope(slack, { type: "app_home_opened", user, channel: "D0HOME", tab: "home", ...extra }), { secret: SIGNING_SECRET });
  expect(delivery.status).toBe(200);
  const published = await slack.waitFor(() => slack.ws.publishes.slice(before).find((p) => p.user === user), `the Home view for ${user}`);
  return published.view.blocks;
}

const textOf = (blocks: Block[]) => blocks.flatMap(blockTexts).join("\n");

describe("Slack App Home", () => {
  it("names each of the person's rooms with its model, policy and schedules, their use today and what is left of their budget", async () => {
    const [mine, used, notMine] = [newChannel(), newChannel(), newChannel()];
    member(mine, "U0ALICE");
    member(used, "U0ALICE", "U0BOB");
    member(notMine, "U0BOB");
    await stack.client.setModel(room(mine), { model: "large", userId: "U0BOB" });
    await stack.client.setPolicy(room(mine), { runPolicy: "approve", userId: "U0BOB" });
    await stack.client.schedule(room(mine), { when: "every 2h", ask: "check disk space", userId: "U0BOB" });
    await stack.client.setPolicy(room(notMine), { runPolicy: "approve", userId: "U0BOB" });
    await answerTo(slack, await mention(slack, bots[0], { channel: used, text: "SAY: hello from the home test", user: "U0ALICE" }));

    const blocks = await openHome("U0ALICE", bots[0]);
    expect(validateBlocks(blocks, 100)).toEqual([]);
    const text = textOf(blocks);
    expect(text).toContain("Duet, your AI pair programmer");
    expect(text).toContain("Ask Duet");
    const mineBlock = blocks.find((b) => blockTexts(b).join("").includes(`<#${mine}>`));
    expect(blockTexts(mineBlock!).join("\n")).toMatch(new RegExp(`<#${mine}> · \`large\` · asks before each command \\(\`approve\`\\)\\nScheduled: \`every 2h\`: \`check disk space\``));
    expect(mineBlock!.accessory).toMatchObject({ type: "button", text: { text: "Open channel" }, url: expect.stringContaining(`channel=${mine}`) });
    const usedBlock = blocks.find((b) => blockTexts(b).join("").includes(`<#${used}>`));
    expect(blockTexts(usedBlock!).join("\n")).toMatch(/`fake-model` · runs commands at once \(`auto`\)\nYou today: [\d,]+ tokens/);
    expect(text).not.toContain(`<#${notMine}>`);
    // The person's use across the workspace and what is left of both budgets.
    const tokens = Number(/([\d,]+) model tokens across this workspace's rooms/.exec(text)?.[1]?.replace(/,/g, ""));
    expect(tokens).toBeGreaterThan(0);
    expect(text).toContain(`Your daily budget: 50,000 tokens, ${(50_000 - tokens).toLocaleString("en-US")} left.`);
    expect(text).toMatch(/Your daily spending limit: \$5\.00, \$5\.00 left\./);
    expect(text).toContain("`fake-model` (the default), `large`");
  });

  it("shows what a person's turns on a priced model cost beside their tokens, in the channel and across the workspace, and what is left to spend", async () => {
    const paid = newChannel();
    member(paid, "U0CAROL");
    await stack.client.setModel(room(paid), { model: "large", userId: "U0CAROL" });
    const marker = `priced-home-${paid}`;
    await answerTo(slack, await mention(slack, bots[0], { channel: paid, text: `SAY: ok ${marker}`, user: "U0CAROL" }));
    const usage = stack.model.calls.find((c) => c.messages.at(-1)?.content.includes(marker))!.usage!;
    // $2 per million tokens in and $8 out.
    const cost = (usage.prompt_tokens * 2 + usage.completion_tokens * 8) / 1e6;
    const tokens = (usage.prompt_tokens + usage.completion_tokens).toLocaleString("en-US");

    const text = textOf(await openHome("U0CAROL", bots[1]));
    expect(text).toContain(`You today: ${tokens} tokens (${dollars(cost)})`);
    expect(text).toContain(`${tokens} model tokens (${dollars(cost)}) across this workspace's rooms`);
    expect(text).toContain(`Your daily spending limit: $5.00, ${dollars(5 - cost)} left.`);
  });

  it("a second replica answering the next opening draws the same view", async () => {
    const channel = newChannel();
    member(channel, "U0CAROL");
    await stack.client.setPolicy(room(channel), { runPolicy: "approve", userId: "U0CAROL" });
    const first = await openHome("U0CAROL", bots[0]);
    const second = await openHome("U0CAROL", bots[1]);
    expect(textOf(first)).toContain(`<#${channel}>`);
    expect(second).toEqual(first);
  });

  it("200 rooms still give a valid view: the first ones listed, then 'and N more'", async () => {
    const channels = Array.from({ length: 200 }, () => newChannel("CM"));
    for (const c of channels) member(c, "U0MANY");
    for (let i = 0; i < channels.length; i += 25) {
      await Promise.all(channels.slice(i, i + 25).map((c) => stack.client.setPolicy(room(c), { runPolicy: "approve", userId: "U0MANY" })));
    }
    const blocks = await openHome("U0MANY", bots[1]);
    expect(validateBlocks(blocks, 100)).toEqual([]);
    expect(blocks.length).toBeLessThanOrEqual(100);
    const listed = channels.filter((c) => textOf(blocks).includes(`<#${c}>`));
    expect(listed.length).toBe(20);
    expect(textOf(blocks)).toContain("…and 180 more channels with Duet.");
    for (const b of blocks) for (const t of blockTexts(b)) expect(t.length).toBeLessThanOrEqual(3000);
  });

  it("when Slack will not say which channels the person is in, the view says so and lists none", async () => {
    const channel = newChannel();
    member(channel, "U0DAVE");
    await stack.client.setPolicy(room(channel), { runPolicy: "approve", userId: "U0DAVE" });
    slack.refuse("users.conversations", "missing_scope");
    try {
      const text = textOf(await openHome("U0DAVE", bots[0]));
      expect(text).toContain("Duet could not check which channels you are in (Slack said `missing_scope`), so none are listed here.");
      expect(text).not.toContain(`<#${channel}>`);
    } finally {
      slack.refuse("users.conversations", null);
    }
  });

  it("a Worker that cannot be reached gives a view of one line saying so, and the next opening after it is back lists the rooms", async () => {
    const channel = newChannel();
    member(channel, "U0FRAN");
    await stack.client.setPolicy(room(channel), { runPolicy: "approve", userId: "U0FRAN" });
    await stack.stopWorker();
    let down: Block[];
    try {
      down = await openHome("U0FRAN", bots[0]);
    } finally {
      await stack.restartWorker();
    }
    expect(validateBlocks(down, 100)).toEqual([]);
    expect(down).toHaveLength(2);
    expect(textOf(down)).toContain("Duet's back end can't be reached right now");
    expect(textOf(down)).not.toMatch(/at \w+ \(|Error:|ECONNREFUSED/);
    expect(textOf(await openHome("U0FRAN", bots[0]))).toContain(`<#${channel}>`);
  });

  it("the Messages tab opening, and a malformed event, publish nothing", async () => {
    const before = slack.ws.publishes.length;
    await postEvent(bots[0].url, envelope(slack, { type: "app_home_opened", user: "U0ERIN", channel: "D0HOME", tab: "messages" }), { secret: SIGNING_SECRET });
    await postEvent(bots[0].url, envelope(slack, { type: "app_home_opened", user: "<script>", channel: "D0HOME", tab: "home" }), { secret: SIGNING_SECRET });
    // A barrier: an opening after both is published, and nothing before it was.
    await openHome("U0ERIN", bots[0]);
    expect(slack.ws.publishes.slice(before).map((p) => p.user)).toEqual(["U0ERIN"]);
  });
});

describe("the Worker's room listing", () => {
  const list = (roomId: string, body: unknown) =>
    fetch(`${stack.workerUrl}/api/rooms/${roomId}/rooms`, { method: "POST", headers: { authorization: `Bearer ${stack.token}`, "content-type": "application/json" }, body: typeof body === "string" ? body : JSON.stringify(body) });

  it("refuses empty, oversized, malformed and hostile input with a 400 naming the field, and lists only a workspace room's rooms", async () => {
    const ws = `slack-${slack.id.teamId}`;
    const empty = await list(ws, {});
    expect(empty.status).toBe(400);
    expect(JSON.stringify(await empty.json())).toContain("userId");
    const oversized = await list(ws, { userId: "U1", channels: Array.from({ length: 5001 }, (_, i) => `C${i}`) });
    expect(oversized.status).toBe(400);
    expect(JSON.stringify(await oversized.json())).toContain("At most 5000 channels");
    expect((await list(ws, "{not json")).status).toBe(400);
    const hostile = await list(ws, { userId: "U1", channels: ["../../etc", "C1'; DROP TABLE duet_children;--"] });
    expect(hostile.status).toBe(400);
    expect((await list(ws, { userId: "U1", limit: 1000 })).status).toBe(400);
    const channelRoom = await list(`${ws}-C1`, { userId: "U1" });
    expect(channelRoom.status).toBe(400);
    expect(JSON.stringify(await channelRoom.json())).toContain("Only a workspace room");
    const none = await list(ws, { userId: "U1", channels: [] });
    expect(none.status).toBe(200);
    expect(await none.json()).toMatchObject({ rooms: [], more: 0 });
  });
});
