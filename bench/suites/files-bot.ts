import { writeFileSync } from "node:fs";
import { setTimeout as sleep } from "node:timers/promises";
import { mentionEvent, postEvent, startFakeSlack } from "../../test/fakes/slack/index.ts";
import type { Stack } from "../../test/helpers/stack.ts";
import { spawnBuiltBot } from "../bots/process.ts";
import { cpuMs, rssMiB } from "../proc.ts";
import { slackBotEnv, slackHttp } from "../../test/helpers/bot-env.ts";

/**
 * A file in and out of a room's workspace the way people move one: through the
 * built Slack bot (`pnpm build`'s bundle, run as the image runs it) and the
 * Worker. In: the fake Slack serves the file at its `url_private_download`, a
 * mention shares it, and the time runs until the turn's model call (which the
 * bot makes only once the file is in `uploads/`). Out: the model attaches it,
 * and the time runs until the fake Slack has every byte at the upload URL, and
 * until the upload is shared in the thread (a new message right after the
 * answer's; the bytes went while the answer was posted).
 * The bot's peak RSS over its idle RSS is read for each direction: it must
 * stream the bytes, never hold the whole file.
 */

const SECRET = "bench-files-signing-secret";
const CHANNEL = "CBENCHFILES";
/** Lets the bot's start-up garbage settle before the idle reading. */
const SETTLE_MS = 1_000;

export interface BotFileFigures {
  inMs: number;
  outMs: number;
  /** Out, until Slack's upload URL has every byte: the file's own movement, before its share. */
  landedMs: number;
  /** The bot's CPU (user + system) from the mention to the end mark: the 20 MiB file in, and a 4-byte file in just before. */
  inCpuMs: number;
  tinyInCpuMs: number;
  /** The settled VmRSS before the file came in. */
  idleMiB: number;
  /** VmHWM over the settled VmRSS just before the file came in, and before it went out (MiB). */
  inGrowthMiB: number;
  outGrowthMiB: number;
}

/**
 * The bot's RSS once it has settled, with its peak (VmHWM) set back to it
 * (Linux: `5` into clear_refs), so the next peak is the next step's own.
 */
async function idleFrom(pid: number): Promise<number> {
  await sleep(SETTLE_MS);
  const idle = rssMiB(pid);
  writeFileSync(`/proc/${pid}/clear_refs`, "5");
  return idle;
}

/** Waits until `probe` finds something, checking every 2 ms; the time it was found (performance.now()). */
async function arrival(probe: () => boolean, what: string, timeoutMs = 120_000): Promise<number> {
  const end = performance.now() + timeoutMs;
  while (!probe()) {
    if (performance.now() > end) throw new Error(`files: no ${what} within ${timeoutMs / 1000} s`);
    await sleep(2);
  }
  return performance.now();
}

export interface SlackBotFiles {
  /** One round: `bytes` (whose sha256 is `sha`) in as `name`, then out again. */
  round(name: string, bytes: Buffer, sha: string): Promise<BotFileFigures>;
  stop(): Promise<void>;
}

/** The built Slack bot in `builtDir` against a fake Slack and the stack's Worker, warmed with one small file each way. */
export async function startSlackBotFiles(stack: Stack, builtDir: string): Promise<SlackBotFiles> {
  const slack = await startFakeSlack();
  const bot = await spawnBuiltBot(builtDir, "slack", slackBotEnv(slack, stack.workerUrl, stack.token, { ...slackHttp(SECRET), SLACK_FILE_ORIGINS: slack.url, DUET_STREAMING: "off" })).catch(async (err) => {
    await slack.close();
    throw err;
  });
  const stop = async () => {
    await bot.stop();
    await slack.close();
  };
  const url = `http://127.0.0.1:${bot.port}/slack/events`;
  const room = `slack-${slack.id.teamId}-${CHANNEL}`;
  /** A mention, its ts, and a promise of its end mark (✅ or ⚠️). */
  const mention = async (text: string, files?: Record<string, unknown>[]) => {
    const payload = mentionEvent(slack, { channel: CHANNEL, text, ...(files ? { files } : {}) });
    const ts = String(payload.event.ts);
    const sentAt = performance.now();
    const delivery = await postEvent(url, payload, { secret: SECRET });
    if (delivery.status !== 200) throw new Error(`files: the bot answered ${delivery.status} to a mention`);
    const done = slack.waitFor(() => slack.ws.reactionsOn(CHANNEL, ts).some((r) => r === "white_check_mark" || r === "warning"), `the end of mention ${ts}`, 120_000);
    return { ts, sentAt, done };
  };
  try {
    // Warm-up: one small file each way, so no figure carries the bot's first connections or compilation.
    const warm = await mention("SAY: ok <attach>uploads/warm.txt</attach>", [slack.sharedFiles.share({ name: "warm.txt", content: "warm" })]);
    await warm.done;
    await slack.waitFor(() => slack.ws.thread(CHANNEL, warm.ts).some((m) => m.via === "files.completeUploadExternal"), "the warm-up file's upload");
  } catch (err) {
    await stop();
    throw err;
  }

  /** The bot's CPU for one turn that brings in `content` as `name`; the mention's send time and when its model call came. */
  async function bringIn(name: string, content: Buffer | string): Promise<{ cpu: number; sentAt: number; asked: number }> {
    const calls = stack.model.calls.length;
    const marker = `files-bench-in-${name}`;
    const file = slack.sharedFiles.share({ name, content, mimetype: "application/octet-stream" });
    const cpu0 = cpuMs(bot.pid);
    const sent = await mention(`SAY: got it ${marker}`, [file]);
    const asked = await arrival(() => stack.model.calls.slice(calls).some((c) => JSON.stringify(c.messages).includes(marker)), "model call after the upload");
    await sent.done;
    return { cpu: cpuMs(bot.pid) - cpu0, sentAt: sent.sentAt, asked };
  }

  async function round(name: string, bytes: Buffer, sha: string): Promise<BotFileFigures> {
    const tiny = await bringIn(`tiny-${name}.txt`, "tiny");
    const idleIn = await idleFrom(bot.pid);
    const big = await bringIn(name, bytes);
    const inGrowthMiB = rssMiB(bot.pid, true) - idleIn;
    const kept = await stack.client.exec(room, { cmd: `sha256sum uploads/${name}` });
    if (!kept.result.stdout.startsWith(sha)) throw new Error(`files: uploads/${name} is not the file the bot was given: ${kept.result.stdout}${kept.result.stderr}`);

    const idleOut = await idleFrom(bot.pid);
    const landing = arrival(() => [...slack.ws.files.values()].some((f) => f.filename === name && f.content?.length === bytes.length), "the big file's bytes at the upload URL");
    const out = await mention(`SAY: here <attach>uploads/${name}</attach>`);
    const posted = await slack.waitFor(
      () => slack.ws.thread(CHANNEL, out.ts).find((m) => m.via === "files.completeUploadExternal"),
      "the big file's upload",
      120_000,
    );
    const postedAt = performance.now();
    const landedAt = await landing;
    await out.done;
    const outGrowthMiB = rssMiB(bot.pid, true) - idleOut;
    const content = posted.files?.[0]?.content;
    if (!content || !Buffer.from(content).equals(bytes)) throw new Error("files: the bytes Slack received differ from the workspace file");
    return { inMs: big.asked - big.sentAt, inCpuMs: big.cpu, tinyInCpuMs: tiny.cpu, outMs: postedAt - out.sentAt, landedMs: landedAt - out.sentAt, idleMiB: idleIn, inGrowthMiB, outGrowthMiB };
  }
  return { round, stop };
}
