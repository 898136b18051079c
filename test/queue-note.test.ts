import { queuedNote } from "@duet/shared";
import { describe, expect, it, vi } from "vitest";
import { runCli } from "../scripts/duet-cli.ts";
import { fakeTerminal } from "./cli/fake-terminal.ts";
import { startDiscordHarness, type DiscordHarness } from "./discord/harness.ts";
import { type FakeSlack, startFakeSlack } from "./fakes/slack/index.ts";
import { startedForTests } from "./helpers/lifecycle.ts";
import { releaseHeld } from "./helpers/model-control.ts";
import { startStack, type Stack } from "./helpers/stack.ts";
import { type BotHandle, mention, newChannel, startBot } from "./slack/harness.ts";

/**
 * The note a waiting asker gets is written once (shared/src/words/queue.ts):
 * Slack's ephemeral, Discord's deferred reply and the terminal show the same
 * sentence, each told by the Worker's `queued` event.
 */

let stack: Stack;
let slack: FakeSlack;
let slackBot: BotHandle;
let discord: DiscordHarness;

// Each platform's first question is held while its second waits: the model may take a minute.
startedForTests(
  async () => {
    const started = { stack: await startStack({ vars: { MODEL_TIMEOUT_MS: "60000" } }), parts: [] as { stop(): Promise<void> }[] };
    const stop = async () => {
      for (const part of started.parts.reverse()) await part.stop();
      await started.stack.stop();
    };
    try {
      const fake = await startFakeSlack();
      started.parts.push({ stop: () => fake.close() });
      const bot = await startBot(fake, started.stack);
      started.parts.push(bot);
      const h = await startDiscordHarness(started.stack);
      started.parts.push(h);
      return { stack: started.stack, slack: fake, slackBot: bot, discord: h, stop };
    } catch (err) {
      await stop();
      throw err;
    }
  },
  (s) => ({ stack, slack, slackBot, discord } = s),
);

const heldByModel = (hold: string) => vi.waitFor(() => expect(stack.model.calls.filter((c) => JSON.stringify(c).includes(hold))).toHaveLength(1), { timeout: 20_000 });

describe("a waiting asker's place", () => {
  it("reads the same on Slack, Discord and the CLI, from the one sentence", async () => {
    const run = Date.now();
    const [onSlack, onDiscord, onCli] = [`note-slack-${run}`, `note-discord-${run}`, `note-cli-${run}`];

    const channel = newChannel();
    const first = await mention(slack, slackBot, { channel, text: `HOLD:${onSlack} CHUNK:6 SAY: first-in-line answer`, user: "U0FIRST" });
    await heldByModel(onSlack);
    await mention(slack, slackBot, { channel, text: "SAY: second", user: "U0SECOND" });
    const slackNote = await slack.waitFor(() => slack.ws.ephemeral.find((e) => e.channel === channel && e.user === "U0SECOND")?.text, "the Slack note");

    const ch = discord.fake.addChannel(discord.guildId, "queue-note");
    discord.fake.interaction(ch, { subcommand: "ask", options: { prompt: `HOLD:${onDiscord} CHUNK:6 SAY: first-in-line answer` } });
    await heldByModel(onDiscord);
    const waiting = discord.fake.interaction(ch, { subcommand: "ask", options: { prompt: "SAY: second" } });
    await vi.waitFor(() => expect(waiting.original?.content).toMatch(/ahead of yours/), { timeout: 20_000 });
    const discordNote = waiting.original!.content;

    const holder = fakeTerminal(stack);
    const held = runCli(["ask", "queue-note-cli", `HOLD:${onCli} CHUNK:6 SAY: first-in-line answer`], holder.io);
    await heldByModel(onCli);
    const t = fakeTerminal(stack);
    const asked = runCli(["ask", "queue-note-cli", "SAY: second"], t.io);
    await t.until("ahead of yours");
    const cliNote = t.printed().split("\n").find((line) => line.includes("ahead of yours"));

    expect({ slack: slackNote, discord: discordNote, cli: cliNote }).toEqual({ slack: queuedNote(1), discord: queuedNote(1), cli: queuedNote(1) });

    for (const hold of [onSlack, onDiscord, onCli]) await releaseHeld(stack.model, hold);
    expect([await held, await asked]).toEqual([0, 0]);
    await slack.waitFor(() => slack.ws.reactionsOn(channel, first.ts).includes("white_check_mark") || null, "the first Slack answer");
  }, 120_000);
});
