import { createSlackBot, loadConfig, LogLevel, type SlackBot, type SlackBotOptions, STOP_ACTION_ID } from "@duet/slack";
import { runningUntilStopped } from "../helpers/left-running.ts";
import { startStack, type Stack, type StackOptions } from "../helpers/stack.ts";
import { type ApiCall, buttonClick, type ButtonInput, postInteraction, type Delivery, type FakeSlack, mentionEvent, startFakeSlack, type MentionInput, postCommand, postEvent, slashCommand, type SlackMessage, Workspace } from "../fakes/slack/index.ts";

/**
 * The real bolt app, started in-process against the fake Slack and the real
 * Worker, plus the few steps every Slack test repeats: mention, wait for the
 * answer in the thread, read it as a person would.
 */

export const SIGNING_SECRET = "test-signing-secret-8f2e";

export interface BotHandle {
  bot: SlackBot;
  /** The bot's Events API endpoint (HTTP mode). */
  url: string;
  stop(): Promise<void>;
}

export async function startBot(
  slack: FakeSlack,
  worker: { workerUrl: string; token: string },
  env: Record<string, string> = {},
  opts: Pick<SlackBotOptions, "workerTimeoutMs" | "statusRenewMs" | "live" | "logger" | "workerRetrySleep" | "channelIntervalMs"> = {},
): Promise<BotHandle> {
  const config = loadConfig({
    SLACK_BOT_TOKEN: slack.id.botToken,
    SLACK_SIGNING_SECRET: SIGNING_SECRET,
    SLACK_API_URL: slack.apiUrl,
    SLACK_PORT: "0",
    DUET_WORKER_URL: worker.workerUrl,
    DUET_API_TOKEN: worker.token,
    ...env,
  });
  const bot = createSlackBot(config, {
    retryConfig: { retries: 0 },
    host: "127.0.0.1",
    logLevel: process.env.DUET_TEST_LOG ? LogLevel.DEBUG : LogLevel.ERROR,
    workerTimeoutMs: opts.workerTimeoutMs ?? 30_000,
    statusRenewMs: opts.statusRenewMs,
    live: opts.live,
    workerRetrySleep: opts.workerRetrySleep,
    channelIntervalMs: opts.channelIntervalMs,
    ...(opts.logger ? { logger: opts.logger } : {}),
  });
  await bot.start();
  const handle = { bot, url: bot.port ? `http://127.0.0.1:${bot.port}/slack/events` : "", stop: () => bot.stop() };
  return runningUntilStopped(`a Slack bot (${bot.mode === "socket" ? "Socket Mode" : "HTTP"})`, handle);
}

/**
 * A logger that keeps the event ids the bot skipped as repeats (its debug
 * line), so a test can wait until a repeated delivery was handled, and prints
 * errors as the default logger does.
 */
export function repeatWatcher(): { logger: NonNullable<SlackBotOptions["logger"]>; skipped: string[] } {
  const skipped: string[] = [];
  const logger: NonNullable<SlackBotOptions["logger"]> = {
    debug: (...m: unknown[]) => {
      const id = /Skipped a repeated delivery of (\S+)/.exec(m.map(String).join(" "))?.[1];
      if (id) skipped.push(id);
    },
    info: () => {},
    warn: () => {},
    error: (...m: unknown[]) => console.error(...m),
    setLevel: () => {},
    getLevel: () => LogLevel.DEBUG,
    setName: () => {},
  };
  return { logger, skipped };
}

/** What most Slack test files run against: the real Worker (fake model and executor), the fake Slack, real bots. */
export interface SlackSetup {
  stack: Stack;
  slack: FakeSlack;
  /** One per entry of `bots` given to startSlackSetup, in that order. */
  bots: BotHandle[];
  stop(): Promise<void>;
}

type BotEnv = Record<string, string> | ((slack: FakeSlack) => Record<string, string>);

/** Starts the stack, the fake Slack and one bot per entry of `bots` (that bot's extra environment). */
export async function startSlackSetup(bots: BotEnv[] = [{}], stackOptions: StackOptions = {}): Promise<SlackSetup> {
  const stack = await startStack(stackOptions);
  const slack = await startFakeSlack().catch(async (err) => {
    await stack.stop();
    throw err;
  });
  const setup: SlackSetup = {
    stack,
    slack,
    bots: [],
    async stop() {
      for (const bot of setup.bots) await bot.stop();
      await slack.close();
      await stack.stop();
    },
  };
  try {
    for (const env of bots) setup.bots.push(await startBot(slack, stack, typeof env === "function" ? env(slack) : env));
  } catch (err) {
    await setup.stop();
    throw err;
  }
  return setup;
}

/**
 * A live bot (the default) and one answering whole (DUET_STREAMING=off): the
 * whole answers are what live ones must end as. The model may take 30 s, for slow answers.
 */
export function startLiveAndWhole(): Promise<SlackSetup> {
  return startSlackSetup([{}, { DUET_STREAMING: "off" }], { vars: { MODEL_TIMEOUT_MS: "30000" } });
}

export interface Mentioned {
  delivery: Delivery;
  eventId: string;
  /** The mention's ts: the thread the answer goes to when it was top level. */
  ts: string;
  threadTs: string;
  channel: string;
}

/** A person mentions Duet; Slack delivers the signed event to the bot. */
export async function mention(slack: FakeSlack, bot: BotHandle, input: MentionInput): Promise<Mentioned> {
  const payload = mentionEvent(slack, input);
  const delivery = await postEvent(bot.url, payload, { secret: SIGNING_SECRET });
  const ts = String(payload.event.ts);
  return { delivery, eventId: payload.event_id, ts, threadTs: input.threadTs ?? ts, channel: input.channel };
}

/** A person types `/duet <text>`; Slack posts the signed command. */
export async function slash(slack: FakeSlack, bot: BotHandle, channel: string, text: string, user = "U0ALICE") {
  const fields = slashCommand(slack, { channel, text, user });
  const delivery = await postCommand(bot.url, fields, { secret: SIGNING_SECRET });
  return { delivery, fields };
}

/** The n-th body Slack got on the command's response_url, once it arrives. */
export function slashResponse(slack: FakeSlack, fields: Record<string, string>, n = 1): Promise<Record<string, unknown>> {
  const id = fields.response_url.split("/").pop();
  return slack.waitFor(() => {
    const posts = slack.responses.filter((r) => r.id === id);
    return posts.length >= n ? posts[n - 1].body : undefined;
  }, `response_url post #${n}`);
}

/** A response_url body as a person reads it. */
export const bodyText = (body: Record<string, unknown>) => readable(body as { text: string; blocks?: Record<string, unknown>[] });

/** A person clicks a button on a message; Slack posts the signed block_actions payload (`edit` changes it first, to forge one). */
export async function click(slack: FakeSlack, bot: BotHandle, input: ButtonInput, edit: (payload: Record<string, any>) => void = () => {}): Promise<Delivery> {
  const payload = buttonClick(slack, input);
  edit(payload);
  return postInteraction(bot.url, payload, { secret: SIGNING_SECRET });
}

/** Bot messages in a thread, as a person opening the thread sees them. */
export function botReplies(slack: FakeSlack, channel: string, threadTs: string): SlackMessage[] {
  return slack.ws.thread(channel, threadTs).filter((m) => m.bot_id === slack.id.botId);
}

/** Waits until the mention carries its end mark (✅ or ⚠️), then returns the thread's bot replies. */
export async function answerTo(slack: FakeSlack, m: { channel: string; ts: string; threadTs: string }): Promise<SlackMessage[]> {
  await slack.waitFor(() => {
    const r = slack.ws.reactionsOn(m.channel, m.ts);
    return r.includes("white_check_mark") || r.includes("warning");
  }, `the end mark on ${m.channel}/${m.ts}`);
  return botReplies(slack, m.channel, m.threadTs);
}

/**
 * The bot's live answer to `/duet ask` in `channel`, once final: posted in the
 * channel by the bot and updated in place, it ends without its Stop button.
 */
export function slashAnswerIn(slack: FakeSlack, channel: string): Promise<SlackMessage> {
  const live = (m: SlackMessage) => JSON.stringify(m.blocks ?? []).includes(STOP_ACTION_ID);
  return slack.waitFor(() => slack.ws.channel(channel).find((m) => m.bot_id === slack.id.botId && m.via === "chat.postMessage" && !live(m)), `the /duet ask answer in ${channel}`);
}

/** A message in its end state: no Stop button left and no stream still open on it. */
export const settled = (m: SlackMessage) => !JSON.stringify(m.blocks ?? []).includes(STOP_ACTION_ID) && !m.stream?.open;

export const readable = (msg: { text: string; blocks?: Record<string, unknown>[] }) => Workspace.readable(msg as Parameters<typeof Workspace.readable>[0]);

/** The calls of `method` the bot made for `channel`. */
export const callsIn = (slack: FakeSlack, method: string, channel: string): ApiCall[] => slack.callsOf(method).filter((c) => c.args.channel === channel);

/** The calls that made a new message in `channel` (Slack accepted them), in the order they arrived. */
export const newMessagesIn = (slack: FakeSlack, channel: string): ApiCall[] =>
  [...callsIn(slack, "chat.postMessage", channel), ...callsIn(slack, "chat.startStream", channel)].filter((c) => c.ok).sort((a, b) => a.at - b.at);

/** The calls that showed a live state (they carry the Stop button, the final message none): the ones the live interval spaces. */
export const liveCalls = (calls: ApiCall[]): ApiCall[] => calls.filter((c) => JSON.stringify(c.args.blocks ?? "").includes(STOP_ACTION_ID));

/** Time between each successful call and the one before it, as the fake recorded them. */
export function gaps(calls: ApiCall[]): number[] {
  const ok = calls.filter((c) => c.status === 200);
  return ok.slice(1).map((c, i) => c.at - ok[i].at);
}

/**
 * The end state people see: a message's text and blocks (a non-streamed answer's
 * is the reference), commands' durations masked, and so the output cut to make
 * room for them (its whole is in the file, which tests compare on their own).
 */
export const endState = (m: { text: string; blocks?: unknown[] }) =>
  JSON.parse(
    JSON.stringify({ text: m.text, blocks: m.blocks })
      .replace(/exit (\d+) · [\d.]+ m?s/g, "exit $1 · (time)")
      .replace(/```[^`]*omitted; full output in (duet-output-\d+\.txt)[^`]*```/g, "```(cut, whole in $1)```"),
  );

/** Section texts of a message: where Slack's 3,000-character limit and fences apply. */
export function sectionTexts(msg: SlackMessage): string[] {
  return (msg.blocks ?? []).filter((b) => b.type === "section").map((b) => String(b.text?.text ?? ""));
}

export { fencesBalanced, modelCallsFor } from "../helpers/assertions.ts";


let channelSeq = 0;
/** A fresh channel id per test, so rooms never mix. */
export function newChannel(prefix = "C"): string {
  channelSeq += 1;
  return `${prefix}${Date.now().toString(36).toUpperCase()}${channelSeq}`;
}
