import { type FakeSlack, mentionEvent, signature, slashCommand, startFakeSlack } from "../../test/fakes/slack/index.ts";
import { Arrivals } from "../arrivals.ts";
import { type BotProcess, spawnBot, spawnBuiltBot } from "../bots/process.ts";
import type { BenchStack } from "../stack.ts";
import { summarize, type Result } from "../stats.ts";
import { watchSlack } from "../watch.ts";
import { pool } from "../pool.ts";
import { firstTokenResults } from "./first-token.ts";
import { PACED_CHANNELS, PacedChannels, REPLY_ONLY, ONE_COMMAND, type BotBenchOptions, memoryNow, memoryResults, WHOLE_ANSWERS, wholeAnswerRows } from "./bot-common.ts";
import { slackBotEnv, slackHttp } from "../../test/helpers/bot-env.ts";

/**
 * The Slack bot in its own process against the fake Slack and the real Worker,
 * in HTTP mode or Socket Mode. One mention gives three figures: the ack (HTTP
 * response or Socket Mode ack envelope), the 👀 reaction (first feedback) and
 * the reply in the thread (Duet's whole path with an instant model). With
 * `builtDir` the bot is `pnpm build`'s output run with plain node. The
 * live-answer rows come from `slackLiveSuite`, with a bot of their own.
 */

/** The signing secret the bench's Slack bots are started with. */
export const SECRET = "bench-signing-secret";

interface Sent {
  sentAt: number;
  ackAt: number;
}
type Deliver = (type: "events_api" | "slash_commands", payload: unknown) => Promise<Sent>;

function httpDelivery(url: string): Deliver {
  return async (type, payload) => {
    const json = type === "events_api";
    const body = json ? JSON.stringify(payload) : new URLSearchParams(payload as Record<string, string>).toString();
    const timestamp = Math.floor(Date.now() / 1000);
    const headers = {
      "content-type": json ? "application/json" : "application/x-www-form-urlencoded",
      "x-slack-request-timestamp": String(timestamp),
      "x-slack-signature": signature(SECRET, timestamp, body),
    };
    const sentAt = performance.now();
    const res = await fetch(url, { method: "POST", headers, body });
    const ackAt = performance.now();
    await res.text();
    if (res.status !== 200) throw new Error(`the bot answered ${res.status} to a signed delivery`);
    return { sentAt, ackAt };
  };
}

function socketDelivery(slack: FakeSlack): Deliver {
  return async (type, payload) => {
    const sentAt = performance.now();
    await slack.socket.deliver(type, payload);
    return { sentAt, ackAt: performance.now() };
  };
}

/** The fake Slack, a bot against it and the way to deliver it an event; `close` stops all three. */
interface SlackBench {
  slack: FakeSlack;
  arrivals: Arrivals;
  bot: BotProcess;
  deliver: Deliver;
  close(): Promise<void>;
}

export async function startSlackBench(stack: BenchStack, mode: "http" | "socket", answers: Record<string, string>, builtDir?: string): Promise<SlackBench> {
  const slack = await startFakeSlack();
  const arrivals = new Arrivals();
  const unwatch = watchSlack(slack, arrivals);
  let bot: BotProcess | undefined;
  const close = async () => {
    await bot?.stop();
    unwatch();
    await slack.close();
  };
  try {
    const env = slackBotEnv(slack, stack.workerUrl, stack.token, { ...answers, ...(mode === "socket" ? { SLACK_APP_TOKEN: slack.id.appToken } : slackHttp(SECRET)) });
    bot = builtDir ? await spawnBuiltBot(builtDir, "slack", env) : await spawnBot("slack-bot.ts", env);
    if (mode === "socket") await slack.socket.whenConnected();
    const deliver = mode === "http" ? httpDelivery(`http://127.0.0.1:${bot.port}/slack/events`) : socketDelivery(slack);
    return { slack, arrivals, bot, deliver, close };
  } catch (err) {
    await close();
    throw err;
  }
}

const labelOf = (mode: "http" | "socket", builtDir?: string) => `slack ${mode === "http" ? "HTTP" : "Socket Mode"}${builtDir ? " (built)" : ""}`;

/** Acks, first feedback, overheads, memory and connections, with the bot answering whole (see WHOLE_ANSWERS). */
export async function slackSuite(stack: BenchStack, mode: "http" | "socket", opts: BotBenchOptions, builtDir?: string): Promise<Result[]> {
  const { slack, arrivals, bot, deliver, close } = await startSlackBench(stack, mode, WHOLE_ANSWERS, builtDir);
  try {
    const idle = await memoryNow(bot, opts.settleMs);

    const channels = Array.from({ length: PACED_CHANNELS }, (_, i) => `CB${mode.toUpperCase()}${i}`);
    const rota = new PacedChannels(channels);
    let turns = 0;
    const mention = async (channel: string, text: string) => {
      const payload = mentionEvent(slack, { channel, text });
      const ts = String(payload.event.ts);
      const eyes = arrivals.expect(`react:${channel}:${ts}:eyes`);
      const posted = arrivals.expect(`post:${channel}:${ts}`);
      const done = arrivals.expect(`done:${channel}:${ts}`);
      const { sentAt, ackAt } = await deliver("events_api", payload);
      const [seen, reply] = await Promise.all([eyes, posted, done]);
      turns += 1;
      if (!slack.ws.reactionsOn(channel, ts).includes("white_check_mark")) throw new Error(`mention ${ts} ended in ⚠️`);
      return { ack: ackAt - sentAt, feedback: seen - sentAt, reply: reply - sentAt };
    };
    const slash = async (channel: string) => {
      const fields = slashCommand(slack, { channel, text: "ask SAY: ok" });
      const answered = arrivals.expect(`resp:${fields.response_url.split("/").pop()}`);
      const { sentAt, ackAt } = await deliver("slash_commands", fields);
      await answered;
      turns += 1;
      return ackAt - sentAt;
    };

    // A timed turn's channel is one the pace lets answer at once (PacedChannels).
    const paced = async <T>(run: (channel: string) => Promise<T>): Promise<T> => {
      const channel = await rota.next();
      const result = await run(channel);
      rota.over(channel);
      return result;
    };
    for (let i = 0; i < opts.warmup; i++) await paced((c) => mention(c, i % 2 ? ONE_COMMAND : REPLY_ONLY));
    const ack: number[] = [];
    const feedback: number[] = [];
    const overhead = { plain: [] as number[], command: [] as number[] };
    for (let i = 0; i < opts.samples; i++) {
      const withCommand = i % 2 === 1;
      const s = await paced((c) => mention(c, withCommand ? ONE_COMMAND : REPLY_ONLY));
      ack.push(s.ack);
      feedback.push(s.feedback);
      overhead[withCommand ? "command" : "plain"].push(s.reply);
    }
    const slashAck: number[] = [];
    for (let i = 0; i < opts.slashSamples; i++) slashAck.push(await paced(slash));

    // The rest of the turns for the memory figure, 8 at a time (timings not kept).
    const bulk = Math.max(0, opts.turns - turns);
    await pool(bulk, 8, (i) => mention(channels[i % channels.length], i % 2 ? ONE_COMMAND : REPLY_ONLY));
    const label = labelOf(mode, builtDir);
    return wholeAnswerRows([
      summarize(`${label}: ack (mention)`, "ms", ack, mode === "http" ? "event POST sent → HTTP 200 received" : "envelope sent → ack envelope received"),
      summarize(`${label}: ack (/duet ask)`, "ms", slashAck, "the ack carries the ⏳ working line"),
      summarize(`${label}: first feedback (👀 reaction)`, "ms", feedback, "event sent → reactions.add at the fake"),
      summarize(`${label}: overhead, mention → reply posted`, "ms", overhead.plain, "instant model, no command"),
      summarize(`${label}: overhead, mention → reply posted, 1 command`, "ms", overhead.command, "instant model, `true` in the fake executor"),
      ...(await memoryResults(label, bot, idle, turns, opts.settleMs, builtDir ? "built, plain node" : "tsx loader included")),
    ]);
  } finally {
    await close();
  }
}

/**
 * Live answers (see first-token.ts) from a bot of its own with streaming on, the
 * default, in HTTP mode: they measure the live path, not the transport. Each turn
 * is over (✅) before its lane's next one is sent.
 */
export async function slackLiveSuite(stack: BenchStack, samples: number): Promise<Result[]> {
  const { slack, arrivals, deliver, close } = await startSlackBench(stack, "http", { DUET_STREAMING: "on" });
  try {
    const done = new Map<number, Promise<number>>();
    // Each lane takes turns over three channels: a lane starts an answer about once a second, the
    // channel pace's limit, so in one channel each first message would wait for the pace instead of
    // showing the live path's time.
    const turns = new Map<number, number>();
    return await firstTokenResults(
      labelOf("http"),
      stack.model,
      arrivals,
      {
        send: async (lane, prompt) => {
          const turn = turns.get(lane) ?? 0;
          turns.set(lane, turn + 1);
          const payload = mentionEvent(slack, { channel: `CFTHTTP${lane}X${turn % 3}`, text: prompt });
          done.set(lane, arrivals.expect(`done:${payload.event.channel}:${payload.event.ts}`));
          return (await deliver("events_api", payload)).sentAt;
        },
        settled: (lane) => done.get(lane)!,
      },
      samples,
    );
  } finally {
    await close();
  }
}
