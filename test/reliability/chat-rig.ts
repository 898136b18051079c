import { startDiscordHarness, type DiscordHarness } from "../discord/harness.ts";
import { type FakeSlack, startFakeSlack } from "../fakes/slack/index.ts";
import { type BotHandle, startBot } from "../slack/harness.ts";
import { type PassThrough, startPassThrough } from "./pass-through.ts";
import { type Rig, startRig } from "./rig.ts";

/** Both bots on one rig: the Worker and the bubblewrap executor, a fake Slack with its bot, a fake Discord with its bot. */
export interface ChatRig {
  rig: Rig;
  slack: FakeSlack;
  bot: BotHandle;
  discord: DiscordHarness;
  stop(): Promise<void>;
}

/** `vars` are the Worker's; `botEnv`, both bots' (`DUET_STREAMING: "off"`, say). */
export async function startChatRig(vars: Record<string, string> = {}, botEnv: Record<string, string> = {}): Promise<ChatRig> {
  const rig = await startRig(vars);
  const slack = await startFakeSlack();
  const bot = await startBot(slack, rig.stack, botEnv);
  const discord = await startDiscordHarness(rig.stack, { env: () => botEnv });
  return {
    rig,
    slack,
    bot,
    discord,
    stop: async () => {
      await discord.stop();
      await bot.stop();
      await slack.close();
      await rig.stop();
    },
  };
}

/** A Slack bot that reaches the Worker through a pass-through, so tests see every request it makes. */
export interface WatchedSlackRig {
  rig: Rig;
  slack: FakeSlack;
  bot: BotHandle;
  toWorker: PassThrough;
  stop(): Promise<void>;
}

export async function startWatchedSlackRig(vars: Record<string, string> = {}): Promise<WatchedSlackRig> {
  const rig = await startRig(vars);
  const slack = await startFakeSlack();
  const toWorker = await startPassThrough(() => rig.stack.workerUrl);
  const bot = await startBot(slack, { workerUrl: toWorker.url, token: rig.stack.token });
  return {
    rig,
    slack,
    bot,
    toWorker,
    stop: async () => {
      await bot.stop();
      await toWorker.close();
      await slack.close();
      await rig.stop();
    },
  };
}
