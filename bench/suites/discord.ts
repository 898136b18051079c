import { startFakeDiscord } from "../../test/fakes/discord/index.ts";
import { Arrivals } from "../arrivals.ts";
import { type BotProcess, spawnBot, spawnBuiltBot } from "../bots/process.ts";
import type { BenchStack } from "../stack.ts";
import { summarize, type Result } from "../stats.ts";
import { watchDiscord } from "../watch.ts";
import { type BotBenchOptions, memoryNow, memoryResults, ONE_COMMAND, REPLY_ONLY } from "./bot-common.ts";
import { pool } from "../pool.ts";
import { firstTokenResults } from "./first-token.ts";

/**
 * The Discord bot in its own process against the fake Discord (REST + gateway)
 * and the real Worker. `/duet ask` gives the defer (Discord's ack, and the first
 * thing the user sees) and the edited reply; a mention gives the typing
 * indicator and the reply. With `builtDir` the bot is `pnpm build`'s output run
 * with plain node (and discord.js's default 50 requests/s global REST limit).
 * With `streamedSamples`, also the live-answer rows (see first-token.ts).
 */

type Kind = "ask" | "mention";

export async function discordSuite(stack: BenchStack, opts: BotBenchOptions, builtDir?: string): Promise<Result[]> {
  const fake = await startFakeDiscord();
  const guildId = fake.addGuild("bench");
  const arrivals = new Arrivals();
  const watch = watchDiscord(fake, arrivals);
  let bot: BotProcess | undefined;
  try {
    const env = {
      DISCORD_TOKEN: fake.token,
      DISCORD_APPLICATION_ID: fake.applicationId,
      DISCORD_API_URL: fake.api,
      DUET_WORKER_URL: stack.workerUrl,
      DUET_API_TOKEN: stack.token,
    };
    bot = builtDir ? await spawnBuiltBot(builtDir, "discord", env) : await spawnBot("discord-bot.ts", env);
    const channels = Array.from({ length: 10 }, (_, i) => fake.addChannel(guildId, `bench-${i}`));
    const idle = await memoryNow(bot, opts.settleMs);

    let turns = 0;
    const turn = async (i: number, kind: Kind, text: string) => {
      const channel = channels[i % channels.length];
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
    for (let i = 0; i < opts.warmup; i++) await turn(i, ...kinds[i % kinds.length]);
    const defer: number[] = [];
    const typing: number[] = [];
    const overhead: Record<string, number[]> = {};
    for (let i = 0; i < opts.samples; i++) {
      const [kind, text] = kinds[i % kinds.length];
      const s = await turn(i, kind, text);
      (kind === "ask" ? defer : typing).push(s.first);
      (overhead[`${kind}:${text}`] ??= []).push(s.reply);
    }
    await pool(Math.max(0, opts.turns - turns), 8, (i) => turn(i, ...kinds[i % kinds.length]));
    const label = builtDir ? "discord (built)" : "discord";
    const lanes = Array.from({ length: 4 }, (_, i) => fake.addChannel(guildId, `bench-streamed-${i}`));
    const streamed = opts.streamedSamples
      ? await firstTokenResults(
          `${label} /duet ask`,
          stack.model,
          arrivals,
          {
            send: (lane, prompt) => {
              const sentAt = performance.now();
              fake.interaction(lanes[lane], { subcommand: "ask", options: { prompt } });
              return sentAt;
            },
          },
          opts.streamedSamples,
        )
      : [];
    const failures = watch.failures();
    return [
      summarize(`${label}: defer (/duet ask ack)`, "ms", defer, "INTERACTION_CREATE sent → interaction callback at the fake; also the first feedback"),
      summarize(`${label}: first feedback (typing, mention)`, "ms", typing, "MESSAGE_CREATE sent → typing at the fake"),
      summarize(`${label}: overhead, /duet ask → reply posted`, "ms", overhead[`ask:${REPLY_ONLY}`], "edit of the deferred reply; instant model, no command"),
      summarize(`${label}: overhead, /duet ask → reply posted, 1 command`, "ms", overhead[`ask:${ONE_COMMAND}`], "instant model, `true` in the fake executor"),
      summarize(`${label}: overhead, mention → reply posted`, "ms", overhead[`mention:${REPLY_ONLY}`], "instant model, no command"),
      summarize(`${label}: overhead, mention → reply posted, 1 command`, "ms", overhead[`mention:${ONE_COMMAND}`], `instant model, \`true\` in the fake executor${failures ? `; ${failures} REST calls failed` : ""}`),
      ...streamed,
      ...(await memoryResults(label, bot, idle, turns, opts.settleMs, builtDir ? "built, plain node" : "tsx loader included")),
    ];
  } finally {
    await bot?.stop();
    watch.close();
    await fake.close();
  }
}
