import { createDiscordBot, loadConfig, type DiscordBot, type Logger } from "@duet/discord";
import { WorkerClient } from "@duet/shared";
import { startFakeDiscord, shownText, type FakeDiscord, type FakeDiscordOptions, type InteractionRecord, type FakeMessage } from "../fakes/discord/index.ts";
import { runningUntilStopped } from "../helpers/left-running.ts";
import { startStack, type Stack, type StackOptions } from "../helpers/stack.ts";

/**
 * The real discord.js bot, started in-process against the fake Discord and the
 * real Worker, plus the steps Discord tests repeat. Requests from the bot to the
 * Worker are recorded (not changed) so tests can count DELETEs.
 */

export interface WorkerRequest {
  method: string;
  path: string;
}

export interface DiscordHarness {
  fake: FakeDiscord;
  bot: DiscordBot;
  guildId: string;
  logs: string[];
  workerRequests: WorkerRequest[];
  /** Resolves once a log line containing `text` was written (past or future). */
  waitForLog(text: string, timeoutMs?: number): Promise<string>;
  /** Holds the bot's requests to the Worker that `match` (a Worker slow to answer them) until the returned release is called. */
  holdWorker(match: (req: WorkerRequest) => boolean): () => void;
  /** Stops the bot and starts a new one on the same fake Discord and Worker, as a deploy or a crash would: `bot` is the new one, which remembers nothing of the old. */
  restartBot(): Promise<void>;
  stop(): Promise<void>;
}

/** The bot's configuration for a fake Discord and a Worker, as its environment would give it. */
export function botConfig(fake: FakeDiscord, worker: Pick<Stack, "workerUrl" | "token">, env: Record<string, string> = {}) {
  return loadConfig({
    ...env,
    DISCORD_TOKEN: fake.token,
    DISCORD_APPLICATION_ID: fake.applicationId,
    DISCORD_API_URL: fake.api,
    DUET_WORKER_URL: worker.workerUrl,
    DUET_API_TOKEN: worker.token,
  });
}

export async function startDiscordHarness(
  worker: Pick<Stack, "workerUrl" | "token">,
  opts: { fake?: FakeDiscordOptions; workerTimeoutMs?: number; workerRetrySleep?: (ms: number) => Promise<void>; typingRenewMs?: number; liveIntervalMs?: number; env?: (fake: FakeDiscord, guildId: string) => Record<string, string>; stack?: StackOptions } = {},
): Promise<DiscordHarness> {
  const fake = await startFakeDiscord({ heartbeatIntervalMs: 1_000, ...opts.fake });
  const guildId = fake.addGuild("duet-tests");
  const logs: string[] = [];
  const waiters: { text: string; resolve: (line: string) => void }[] = [];
  const write = (level: string) => (msg: string) => {
    const line = `${level} ${msg}`;
    logs.push(line);
    if (process.env.DUET_TEST_LOG) console.log(`[discord-bot] ${line}`);
    for (const w of [...waiters]) {
      if (line.includes(w.text)) {
        waiters.splice(waiters.indexOf(w), 1);
        w.resolve(line);
      }
    }
  };
  const log: Logger = { info: write("info"), warn: write("warn"), error: write("error") };
  const workerRequests: WorkerRequest[] = [];
  const holds: { match: (req: WorkerRequest) => boolean; released: Promise<void> }[] = [];
  const recordingFetch: typeof fetch = async (input, init) => {
    const url = new URL(typeof input === "string" ? input : input instanceof URL ? input.href : input.url);
    const req = { method: init?.method ?? "GET", path: decodeURIComponent(url.pathname) };
    // Delivery bookkeeping (the feed's reads, an answer's confirm after it is posted) runs on its own
    // clock, and can land after the next test began: left out, so a test counts what its event caused.
    const bookkeeping = url.pathname.startsWith("/api/deliveries/") || url.pathname.endsWith("/deliveries");
    if (!bookkeeping) workerRequests.push(req);
    await Promise.all(holds.filter((h) => h.match(req)).map((h) => h.released));
    return fetch(input, init);
  };
  const config = botConfig(fake, worker, opts.env?.(fake, guildId));
  const newBot = () =>
    createDiscordBot(config, {
      log,
      typingRenewMs: opts.typingRenewMs,
      liveIntervalMs: opts.liveIntervalMs,
      rest: { globalRequestsPerSecond: 1_000, timeout: 10_000 },
      worker: new WorkerClient({ baseUrl: config.workerUrl, token: config.apiToken, timeoutMs: opts.workerTimeoutMs ?? 30_000, fetch: recordingFetch, sleep: opts.workerRetrySleep }),
    });
  const startBot = async () => {
    const started = newBot();
    await started.start();
    return runningUntilStopped("a Discord bot", started);
  };
  let bot = await startBot();
  return {
    fake,
    get bot() {
      return bot;
    },
    guildId,
    logs,
    workerRequests,
    waitForLog(text, timeoutMs = 30_000) {
      const found = logs.find((l) => l.includes(text));
      if (found) return Promise.resolve(found);
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no log line with "${text}" within ${timeoutMs} ms; logs:\n${logs.join("\n")}`)), timeoutMs);
        waiters.push({ text, resolve: (l) => (clearTimeout(timer), resolve(l)) });
      });
    },
    holdWorker(match) {
      let release!: () => void;
      const hold = { match, released: new Promise<void>((resolve) => (release = resolve)) };
      holds.push(hold);
      return () => {
        holds.splice(holds.indexOf(hold), 1);
        release();
      };
    },
    async restartBot() {
      await bot.stop();
      bot = await startBot();
    },
    async stop() {
      await bot.stop();
      await fake.close();
    },
  };
}

/** Waits until the bot says it answered the interaction, then returns what the user sees. */
export async function interactionAnswer(h: DiscordHarness, rec: InteractionRecord): Promise<{ messages: FakeMessage[]; text: string; rec: InteractionRecord }> {
  await h.waitForLog(`interaction ${rec.id} answered`);
  const messages = [rec.original, ...rec.followups].filter((m): m is FakeMessage => m !== null);
  return { messages, text: messages.map((m) => shownText(m)).join("\n"), rec };
}

/** Waits until the bot says it answered the message, then returns the bot's messages in that channel after it. */
export async function mentionAnswer(h: DiscordHarness, msg: FakeMessage): Promise<FakeMessage[]> {
  await h.waitForLog(`message ${msg.id} answered`);
  return h.fake.messagesIn(msg.channel_id).filter((m) => m.author.id === h.fake.botUser.id && BigInt(m.id) > BigInt(msg.id));
}

export { fencesBalanced, modelCallsFor } from "../helpers/assertions.ts";

/** What most Discord test files run against: the real Worker (fake model and executor) and the bot on the fake Discord. */
export interface DiscordSetup {
  stack: Stack;
  h: DiscordHarness;
  stop(): Promise<void>;
}

export async function startDiscordSetup(opts: Parameters<typeof startDiscordHarness>[1] = {}): Promise<DiscordSetup> {
  const stack = await startStack(opts.stack);
  const h = await startDiscordHarness(stack, opts).catch(async (err) => {
    await stack.stop();
    throw err;
  });
  return {
    stack,
    h,
    async stop() {
      await h.stop();
      await stack.stop();
    },
  };
}
