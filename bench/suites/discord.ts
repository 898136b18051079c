import { type FakeDiscord, startFakeDiscord } from "../../test/fakes/discord/index.ts";
import { Arrivals } from "../arrivals.ts";
import { type BotProcess, spawnBot, spawnBuiltBot } from "../bots/process.ts";
import type { BenchStack } from "../stack.ts";
import { summarize, type Result } from "../stats.ts";
import { watchDiscord } from "../watch.ts";
import { PACED_CHANNELS, PacedChannels, type BotBenchOptions, memoryNow, memoryResults, ONE_COMMAND, pace, REPLY_ONLY, WHOLE_ANSWERS, wholeAnswerRows } from "./bot-common.ts";
import { pool } from "../pool.ts";
import { firstTokenResults, LIVE_LANES } from "./first-token.ts";

/**
 * The Discord bot in its own process against the fake Discord (REST + gateway)
 * and the real Worker. `/duet ask` gives the defer (Discord's ack, and the first
 * thing the user sees) and the edited reply; a mention gives the typing
 * indicator and the reply. With `builtDir` the bot is `pnpm build`'s output run
 * with plain node (and discord.js's default 50 requests/s global REST limit).
 * The live-answer rows come from `discordLiveSuite`, with a bot of their own.
 */

type Kind = "ask" | "mention";

/** The fake Discord, a bot against it and a guild to add channels to; `close` stops them all. */
interface DiscordBench {
  fake: FakeDiscord;
  guildId: string;
  arrivals: Arrivals;
  watch: ReturnType<typeof watchDiscord>;
  bot: BotProcess;
  close(): Promise<void>;
}

async function startDiscordBench(stack: BenchStack, answers: Record<string, string>, builtDir?: string): Promise<DiscordBench> {
  const fake = await startFakeDiscord();
  const guildId = fake.addGuild("bench");
  const arrivals = new Arrivals();
  const watch = watchDiscord(fake, arrivals);
  let bot: BotProcess | undefined;
  const close = async () => {
    await bot?.stop();
    watch.close();
    await fake.close();
  };
  try {
    const env = {
      DISCORD_TOKEN: fake.token,
      DISCORD_APPLICATION_ID: fake.applicationId,
      DISCORD_API_URL: fake.api,
      DUET_WORKER_URL: stack.workerUrl,
      DUET_API_TOKEN: stack.token,
      ...answers,
    };
    bot = builtDir ? await spawnBuiltBot(builtDir, "discord", env) : await spawnBot("discord-bot.ts", env);
    return { fake, guildId, arrivals, watch, bot, close };
  } catch (err) {
    await close();
    throw err;
  }
}

/** Defer, typing, overheads, memory and connections, with the bot answering whole (see WHOLE_ANSWERS). */
export async function discordSuite(stack: BenchStack, opts: BotBenchOptions, builtDir?: string): Promise<Result[]> {
  const { fake, guildId, arrivals, watch, bot, close } = await startDiscordBench(stack, WHOLE_ANSWERS, builtDir);
  try {
    const channels = Array.from({ length: PACED_CHANNELS }, (_, i) => fake.addChannel(guildId, `bench-${i}`));
    const idle = await memoryNow(bot, opts.settleMs);
    const rota = new PacedChannels(channels);
    let turns = 0;
    const turn = async (channel: string, kind: Kind, text: string) => {
      let first: Promise<number>;
      let reply: Promise<number>;
      // The fake dispatches synchronously and the bot is another process, so nothing can arrive before these are registered.
      const sentAt = performance.now();
      if (kind === "ask") {
        const rec = fake.interaction(channel, { subcommand: "ask", options: { prompt: text } });
        first = arrivals.expect(`defer:${rec.id}`);
        reply = arrivals.expect(`edit:${rec.token}`);
      } else {
        first = arrivals.expect(`typing:${channel}`);
        const msg = fake.message(channel, text, { mention: true });
        reply = arrivals.expect(`reply:${msg.id}`);
      }
      const [f, r] = await Promise.all([first, reply]);
      turns += 1;
      return { first: f - sentAt, reply: r - sentAt };
    };

    const kinds: [Kind, string][] = [["ask", REPLY_ONLY], ["mention", REPLY_ONLY], ["ask", ONE_COMMAND], ["mention", ONE_COMMAND]];
    // A timed turn is over once the bot's Worker has answered its answer's delivery confirm (one per
    // turn), as a Slack turn is over at its ✅: the next turn is not measured against that write.
    const confirmed = async () => {
      let timer: NodeJS.Timeout | undefined;
      const late = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`turn ${turns}'s answer was not confirmed to the Worker within 10 s`)), 10_000)));
      try {
        await Promise.race([bot.confirmed(turns), late]);
      } finally {
        clearTimeout(timer);
      }
    };
    // A timed turn's channel is one the pace lets answer at once (PacedChannels); it is over once confirmed.
    const paced = async (kind: Kind, text: string) => {
      const channel = await rota.next();
      const s = await turn(channel, kind, text);
      await confirmed();
      rota.over(channel);
      return s;
    };
    for (let i = 0; i < opts.warmup; i++) {
      const t0 = performance.now();
      await paced(...kinds[i % kinds.length]);
      await pace(t0, opts.turnGapMs);
    }
    const defer: number[] = [];
    const typing: number[] = [];
    const overhead: Record<string, number[]> = {};
    for (let i = 0; i < opts.samples; i++) {
      const t0 = performance.now();
      const [kind, text] = kinds[i % kinds.length];
      const s = await paced(kind, text);
      (kind === "ask" ? defer : typing).push(s.first);
      (overhead[`${kind}:${text}`] ??= []).push(s.reply);
      await pace(t0, opts.turnGapMs);
    }
    await pool(Math.max(0, opts.turns - turns), 8, (i) => turn(channels[i % channels.length], ...kinds[i % kinds.length]));
    const label = builtDir ? "discord (built)" : "discord";
    const failures = watch.failures();
    return wholeAnswerRows([
      summarize(`${label}: defer (/duet ask ack)`, "ms", defer, "INTERACTION_CREATE sent → interaction callback at the fake; also the first feedback"),
      summarize(`${label}: first feedback (typing, mention)`, "ms", typing, "MESSAGE_CREATE sent → typing at the fake"),
      summarize(`${label}: overhead, /duet ask → reply posted`, "ms", overhead[`ask:${REPLY_ONLY}`], "edit of the deferred reply; instant model, no command"),
      summarize(`${label}: overhead, /duet ask → reply posted, 1 command`, "ms", overhead[`ask:${ONE_COMMAND}`], "instant model, `true` in the fake executor"),
      summarize(`${label}: overhead, mention → reply posted`, "ms", overhead[`mention:${REPLY_ONLY}`], "instant model, no command"),
      summarize(`${label}: overhead, mention → reply posted, 1 command`, "ms", overhead[`mention:${ONE_COMMAND}`], `instant model, \`true\` in the fake executor${failures ? `; ${failures} REST calls failed` : ""}`),
      ...(await memoryResults(label, bot, idle, turns, opts.settleMs, builtDir ? "built, plain node" : "tsx loader included")),
    ]);
  } finally {
    await close();
  }
}

/**
 * Live answers (see first-token.ts) to `/duet ask`, from a bot of its own with
 * streaming on, the default. Each turn's final edit (the Stop button gone) is in
 * before its channel's next one is sent.
 */
export async function discordLiveSuite(stack: BenchStack, samples: number): Promise<Result[]> {
  const { fake, guildId, arrivals, close } = await startDiscordBench(stack, { DUET_STREAMING: "on" });
  try {
    const lanes = Array.from({ length: LIVE_LANES }, (_, i) => fake.addChannel(guildId, `bench-streamed-${i}`));
    const over = new Map<number, Promise<number>>();
    return await firstTokenResults(
      "discord /duet ask",
      stack.model,
      arrivals,
      {
        send: (lane, prompt) => {
          const sentAt = performance.now();
          // Dispatched at once to a bot in another process: nothing can arrive before the expectation is registered.
          const rec = fake.interaction(lanes[lane], { subcommand: "ask", options: { prompt } });
          over.set(lane, arrivals.expect(`final:${rec.token}`));
          return sentAt;
        },
        settled: (lane) => over.get(lane)!,
      },
      samples,
    );
  } finally {
    await close();
  }
}
