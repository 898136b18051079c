import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startFakeSlack, type FakeSlack } from "../fakes/slack/index.ts";
import { startStack, type Stack } from "../helpers/stack.ts";
import { type Fault, type PassThrough, startPassThrough } from "../reliability/pass-through.ts";
import { answerTo, type BotHandle, mention, newChannel, newMessagesIn, readable, startBot } from "./harness.ts";

/**
 * The channel pace replicas share (SLACK_REPLICAS=many) lives in the Worker; a
 * bot whose ask for a slot hangs (past PACE_ASK_TIMEOUT_MS) or fails posts on
 * its own pace alone. A bot alone (the default) never asks: its own pace is the
 * channel's. The bots reach the Worker through a pass-through that breaks only
 * the pace route.
 */

let stack: Stack;
let slack: FakeSlack;
let toWorker: PassThrough;
let bot: BotHandle;
let alone: BotHandle;
let paceFault: Fault | null = null;
const paceAsks: Fault[] = [];

beforeAll(async () => {
  stack = await startStack();
  slack = await startFakeSlack();
  toWorker = await startPassThrough(
    () => stack.workerUrl,
    (c) => {
      if (!c.path.startsWith("/api/pace/") || !paceFault) return null;
      paceAsks.push(paceFault);
      return paceFault;
    },
  );
  bot = await startBot(slack, { workerUrl: toWorker.url, token: stack.token }, { SLACK_REPLICAS: "many" });
  alone = await startBot(slack, { workerUrl: toWorker.url, token: stack.token });
}, 120_000);

afterAll(async () => {
  await bot?.stop();
  await alone?.stop();
  await toWorker?.close();
  await slack?.close();
  await stack?.stop();
});

describe("the Slack bot when the Worker's channel pace does not answer", () => {
  for (const fault of ["hang", "http-500"] as const) {
    it(`(${fault}) still posts each answer once, its own pace spacing them a second apart`, async () => {
      paceFault = fault;
      const asked = paceAsks.length;
      const channel = newChannel();
      const mentions = [];
      for (let i = 0; i < 2; i++) mentions.push(await mention(slack, bot, { channel, text: `SAY: unpaced-${fault}-${i}` }));
      for (const [i, m] of mentions.entries()) {
        const replies = await answerTo(slack, m);
        expect(replies).toHaveLength(1);
        expect(readable(replies[0])).toContain(`unpaced-${fault}-${i}`);
      }
      // Each new message asked the Worker first, and went on without it.
      expect(paceAsks.length - asked).toBeGreaterThanOrEqual(2);
      const created = newMessagesIn(slack, channel);
      expect(created).toHaveLength(2);
      expect(created[1].at - created[0].at).toBeGreaterThanOrEqual(950);
    }, 60_000);
  }
});

describe("a Slack bot that answers its app alone (SLACK_REPLICAS unset)", () => {
  it("paces a channel's new messages a second apart itself, asking the Worker for no slot and holding no answer there", async () => {
    paceFault = null;
    const since = toWorker.crossings.length;
    const channel = newChannel();
    const mentions = [];
    for (let i = 0; i < 2; i++) mentions.push(await mention(slack, alone, { channel, text: `SAY: alone-${i}` }));
    for (const [i, m] of mentions.entries()) expect(readable((await answerTo(slack, m))[0])).toContain(`alone-${i}`);
    const created = newMessagesIn(slack, channel);
    expect(created).toHaveLength(2);
    expect(created[1].at - created[0].at).toBeGreaterThanOrEqual(950);
    // Both asks crossed (the barrier: a slot or a hold would have been asked before its answer was posted).
    const crossed = toWorker.crossings.slice(since);
    expect(crossed.filter((c) => c.path.endsWith("/message"))).toHaveLength(2);
    expect(crossed.filter((c) => c.path.startsWith("/api/pace/") || c.path.endsWith("/deliveries/hold"))).toEqual([]);
  }, 60_000);
});
