import { CHANNEL_MESSAGE_INTERVAL_MS, WorkerClient } from "@duet/shared";
import { createLogger, LogLevel, WorkerInstallationStore } from "@duet/slack";
import { type FakeSlack, mentionEvent, startFakeSlack } from "../../test/fakes/slack/index.ts";
import { startRoundRobin, type RoundRobin } from "../../test/helpers/round-robin.ts";
import { Arrivals } from "../arrivals.ts";
import { type BotProcess, spawnBot } from "../bots/process.ts";
import { cpuMs } from "../proc.ts";
import type { BenchStack } from "../stack.ts";
import { single, summarize, type Result } from "../stats.ts";
import { postSlackEvent } from "./slack-post.ts";
import { watchSlack } from "../watch.ts";
import { slackBotEnv, slackHttp } from "../../test/helpers/bot-env.ts";

/**
 * Slack replicas under a burst: one bot process, then two behind a round-robin
 * balancer, each against the same Worker and a fresh fake Slack. Per setup:
 * 50 mentions in 1 s over 50 channels, then 50 in one channel, each answer
 * running one command (streaming on, the default). Reported side by side: ack
 * p99, first visible text, the command's end → ✅ on the mention (posted right after the final
 * message), the most messages posted in one channel in any second (Slack allows
 * about one), and the bots' CPU per turn; on one replica first, mentions one at
 * a time: the command's end → the final message with nothing else running. Then what the replicas' shared state
 * costs: a delivery claim, and an installation lookup cached against a Worker
 * round trip, and the channel pace's slot.
 */

const SECRET = "bench-replicas-secret";
const BURST = 50;
/** 50 events in one second. */
const SPACING_MS = 20;
const LOOKUPS = 200;

export interface Setup {
  slack: FakeSlack;
  arrivals: Arrivals;
  bots: BotProcess[];
  balancer: RoundRobin;
  close(): Promise<void>;
}

export async function startSetup(stack: BenchStack, replicas: number): Promise<Setup> {
  const slack = await startFakeSlack();
  const arrivals = new Arrivals();
  const unwatch = watchSlack(slack, arrivals);
  const env = slackBotEnv(slack, stack.workerUrl, stack.token, { ...slackHttp(SECRET), SLACK_REPLICAS: "many" });
  const bots = await Promise.all(Array.from({ length: replicas }, () => spawnBot("slack-bot.ts", env)));
  const balancer = await startRoundRobin(() => bots.map((b) => `http://127.0.0.1:${b.port}`));
  return {
    slack,
    arrivals,
    bots,
    balancer,
    async close() {
      for (const b of bots) await b.stop();
      await balancer.close();
      unwatch();
      await slack.close();
    },
  };
}

export const post = (url: string, payload: unknown) => postSlackEvent(url, SECRET, payload);

/** The arrival times of each channel's new messages (chat.postMessage / chat.startStream), in order. */
function newMessageTimes(slack: FakeSlack): number[][] {
  const byChannel = new Map<string, number[]>();
  for (const c of slack.calls) {
    if (!c.ok || (c.method !== "chat.postMessage" && c.method !== "chat.startStream")) continue;
    const list = byChannel.get(String(c.args.channel)) ?? [];
    list.push(c.at);
    byChannel.set(String(c.args.channel), list);
  }
  return [...byChannel.values()].map((times) => times.sort((a, b) => a - b));
}

/** The most new messages one channel got within any 1,000 ms. */
function busiestSecond(slack: FakeSlack): number {
  let most = 0;
  for (const times of newMessageTimes(slack)) {
    for (let i = 0, j = 0; j < times.length; j++) {
      while (times[j] - times[i] >= 1_000) i++;
      most = Math.max(most, j - i + 1);
    }
  }
  return most;
}

/** The least time between two new messages in one channel (NaN when no channel got two). */
function leastGap(slack: FakeSlack): number {
  const gaps = newMessageTimes(slack).flatMap((times) => times.slice(1).map((t, i) => t - times[i]));
  return gaps.length ? Math.min(...gaps) : NaN;
}

/** One burst: `BURST` mentions `SPACING_MS` apart, in `channels` channels; resolves when every one has its ✅ or ⚠️. */
async function burst(stack: BenchStack, s: Setup, label: string, channels: (i: number) => string): Promise<Result[]> {
  const channelsUsed = new Set(Array.from({ length: BURST }, (_, i) => channels(i))).size;
  const clockOffset = Date.now() - performance.now();
  const cpuBefore = s.bots.map((b) => cpuMs(b.pid));
  const run = `${label.replace(/\W+/g, "")}${Date.now().toString(36)}`;
  const sent = Array.from({ length: BURST }, async (_, i) => {
    await new Promise((r) => setTimeout(r, i * SPACING_MS));
    const marker = `${run}-${i}`;
    // The answer's first words carry a marker of their own (the command's marker also shows in its task).
    const words = `said${run}x${i}`;
    const channel = channels(i);
    const payload = mentionEvent(s.slack, { channel, text: `SAY: ${words} <run>echo ${marker}</run>` });
    const done = s.arrivals.expect(`done:${channel}:${payload.event.ts}`, 120_000);
    const seen = s.arrivals.expectText(words, 120_000);
    const { ack, sentAt } = await post(`${s.balancer.url}/slack/events`, payload);
    const doneAt = await done;
    const ran = stack.executor!.calls.find((c) => c.command === `echo ${marker}`);
    return { ack, firstText: (await seen) - sentAt, final: ran ? doneAt - (ran.at - clockOffset) : NaN };
  });
  const samples = await Promise.all(sent);
  const turns = samples.length;
  const cpu = s.bots.reduce((sum, b, i) => sum + cpuMs(b.pid) - cpuBefore[i], 0);
  return [
    summarize(`${label}: ack`, "ms", samples.map((x) => x.ack), "event POST to the balancer → HTTP 200"),
    summarize(`${label}: first visible text`, "ms", samples.map((x) => x.firstText), "event POST → the answer's first words at the fake Slack"),
    summarize(`${label}: command's end → ✅ (after the final message)`, "ms", samples.map((x) => x.final).filter((x) => !Number.isNaN(x))),
    single(`${label}: most messages in one channel in 1 s`, "msgs", busiestSecond(s.slack), turns, "chat.postMessage + chat.startStream; Slack allows ~1"),
    ...(channelsUsed === 1 ? [single(`${label}: least time between two new messages in the channel`, "ms", leastGap(s.slack), turns, "as the fake Slack saw them arrive; the pace spaces them 1 s")] : []),
    single(`${label}: bot CPU per turn`, "ms", cpu / turns, turns, "user + system, all replicas, /proc"),
  ];
}

/** Mentions answered one after another, with nothing else running: the floor under the bursts' figures. */
const ALONE = 10;

/**
 * The time from a command's end to the answer's final message, one mention at
 * a time: the text streams, the command (`echo`, so its start is its end) runs,
 * and the final message follows. The final message is the channel's last
 * chat.update, as the fake Slack recorded its arrival.
 */
async function alone(stack: BenchStack, s: Setup, label: string): Promise<Result[]> {
  const run = `alone${Date.now().toString(36)}`;
  const samples: number[] = [];
  for (let i = 0; i < ALONE; i++) {
    const channel = `CAL${run.toUpperCase()}X${i}`;
    const marker = `${run}-${i}`;
    const payload = mentionEvent(s.slack, { channel, text: `SAY: Let me check that for you. <run>echo ${marker}</run>` });
    const done = s.arrivals.expect(`done:${channel}:${payload.event.ts}`, 60_000);
    await post(`${s.balancer.url}/slack/events`, payload);
    await done;
    const ran = stack.executor!.calls.find((c) => c.command === `echo ${marker}`);
    const final = s.slack.calls.filter((c) => c.ok && c.method === "chat.update" && c.args.channel === channel).at(-1);
    if (ran && final) samples.push(final.at - ran.at);
  }
  return [summarize(`${label}, alone: command's end → final message`, "ms", samples, `${ALONE} mentions one at a time; target ≤ 200 ms p50`)];
}

/** The delivery claim every mention now costs, the shared pace's slot every new message costs, and an installation lookup from the cache against one that reads the Worker. */
async function sharedStateCosts(stack: BenchStack): Promise<Result[]> {
  const worker = new WorkerClient({ baseUrl: stack.workerUrl, token: stack.token });
  const claims: number[] = [];
  for (let i = 0; i < LOOKUPS; i++) {
    const t0 = performance.now();
    await worker.claimEvent("slack-TBENCH", `Ev${Date.now()}${i}`);
    claims.push(performance.now() - t0);
  }
  // A fresh channel per ask, as a busy workspace's new messages mostly are: the slot answers at once (waitMs 0).
  const slots: number[] = [];
  for (let i = 0; i < LOOKUPS; i++) {
    const t0 = performance.now();
    await worker.paceSlot("slack-TBENCH", { channel: `CB${Date.now()}${i}`, intervalMs: CHANNEL_MESSAGE_INTERVAL_MS, holder: "bench" });
    slots.push(performance.now() - t0);
  }
  const logger = createLogger(LogLevel.ERROR);
  const refresh = async () => {
    throw new Error("no rotation in this bench");
  };
  const team = `TB${Date.now().toString(36).toUpperCase()}`;
  const installation = { team: { id: team }, isEnterpriseInstall: false, user: { id: "U0BENCH" }, bot: { token: "xoxb-bench", userId: "U0BOT", scopes: ["chat:write"] } };
  const cached = new WorkerInstallationStore({ workerUrl: stack.workerUrl, apiToken: stack.token, logger, refresh });
  const uncached = new WorkerInstallationStore({ workerUrl: stack.workerUrl, apiToken: stack.token, logger, refresh, cacheMs: 0 });
  await cached.storeInstallation(installation as never);
  const time = async (store: WorkerInstallationStore) => {
    const out: number[] = [];
    for (let i = 0; i < LOOKUPS; i++) {
      const t0 = performance.now();
      await store.fetchInstallation({ teamId: team, isEnterpriseInstall: false, enterpriseId: undefined });
      out.push(performance.now() - t0);
    }
    return out;
  };
  return [
    summarize("replicas: delivery claim (POST /api/claims)", "ms", claims, "one per mention, DM or welcome"),
    summarize("replicas: channel pace slot (POST /api/pace)", "ms", slots, "one per new message, none per edit"),
    summarize("replicas: installation lookup, cached", "ms", await time(cached), "within 60 s of the last read"),
    summarize("replicas: installation lookup, Worker round trip", "ms", await time(uncached), "a cache miss: GET /api/installations"),
  ];
}

export async function replicasSuite(stack: BenchStack): Promise<Result[]> {
  const results: Result[] = [];
  for (const replicas of [1, 2]) {
    const s = await startSetup(stack, replicas);
    try {
      const label = `slack ×${replicas}`;
      // Warm both replicas' connections and the Worker's rooms code.
      for (let i = 0; i < 4; i++) await warm(s, `CWARM${replicas}X${i}`);
      if (replicas === 1) results.push(...(await alone(stack, s, label)));
      results.push(...(await burst(stack, s, `${label}, 50 channels`, (i) => `CR${replicas}X${i}`)));
      results.push(...(await burst(stack, s, `${label}, one channel`, () => `CR${replicas}ONE`)));
    } finally {
      await s.close();
    }
  }
  return [...results, ...(await sharedStateCosts(stack))];
}

/** A mention answered (✅) before the timed bursts. */
async function warm(s: Setup, channel: string): Promise<void> {
  const payload = mentionEvent(s.slack, { channel, text: "SAY: warm <run>true</run>" });
  const done = s.arrivals.expect(`done:${channel}:${payload.event.ts}`, 60_000);
  await post(`${s.balancer.url}/slack/events`, payload);
  await done;
}
