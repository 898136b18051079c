import { envelope } from "../../test/fakes/slack/index.ts";
import { pool } from "../pool.ts";
import type { BenchStack } from "../stack.ts";
import { single, summarize, type Result } from "../stats.ts";
import { memoryNow } from "./bot-common.ts";
import { startSlackBench } from "./slack.ts";

/**
 * Slack's App Home with many rooms, as the person opening it waits for it:
 * one person in 200 channels where Duet has a room (each with its policy),
 * `app_home_opened` delivered to the bot over HTTP, timed to the
 * `views.publish` for that person reaching Slack (the bot lists the rooms
 * from the Worker and draws at most 100 blocks). Then the bot's RSS after
 * 1,000 openings, beside its RSS before the first.
 */

const ROOMS = 200;
const WARMUP = 10;
const SAMPLES = 100;
const OPENS = 1_000;
const PERSON = "U0HOMEBENCH";

export async function appHomeSuite(stack: BenchStack, settleMs = 1_000): Promise<Result[]> {
  const { slack, arrivals, bot, deliver, close } = await startSlackBench(stack, "http", {});
  try {
    const channels = Array.from({ length: ROOMS }, (_, i) => `CHOME${String(i).padStart(3, "0")}`);
    await pool(ROOMS, 8, async (i) => {
      const channel = channels[i]!;
      slack.ws.members.set(channel, new Set([PERSON]));
      await stack.client.setPolicy(`slack-${slack.id.teamId}-${channel}`, { runPolicy: i % 2 ? "approve" : "auto", userId: PERSON });
    });
    const idle = await memoryNow(bot, settleMs);
    let opened = 0;
    const open = async (): Promise<number> => {
      const published = arrivals.expect(`home:${PERSON}:${++opened}`);
      const { sentAt } = await deliver("events_api", envelope(slack, { type: "app_home_opened", user: PERSON, channel: "D0HOME", tab: "home" }));
      return (await published) - sentAt;
    };
    for (let i = 0; i < WARMUP; i++) await open();
    const times: number[] = [];
    for (let i = 0; i < SAMPLES; i++) times.push(await open());
    // The rest one after another too: openings at once would be told apart by order only.
    while (opened < OPENS) await open();
    const blocks = slack.ws.publishes.at(-1)!.view.blocks.length;
    const after = await memoryNow(bot, settleMs);
    return [
      summarize(`app home: app_home_opened → views.publish, ${ROOMS} rooms`, "ms", times, `the bot lists the person's rooms from the Worker; ${blocks} blocks drawn`),
      single(
        `app home: bot RSS after ${OPENS} openings`,
        "MiB",
        after.rss,
        1,
        `${(after.rss - idle.rss).toFixed(1)} MiB over before the first (${idle.rss.toFixed(1)} MiB); heap after GC ${idle.heapMiB.toFixed(1)} → ${after.heapMiB.toFixed(1)} MiB; tsx loader included`,
      ),
    ];
  } finally {
    await close();
  }
}
