import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { WorkerClient } from "@duet/shared";
import { startFakeExecutor, type FakeExecutor } from "../fakes/executor.ts";
import { startFakeModel, type FakeModel } from "../fakes/model.ts";
import { mentionEvent, postCommand, postEvent, slashCommand, startFakeSlack, type FakeSlack, type SlackMessage } from "../fakes/slack/index.ts";
import { quietPort } from "../helpers/ports.ts";
import { REPO_ROOT } from "../helpers/worker.ts";
import { answerTo, readable } from "../slack/harness.ts";
import { buildBots, type Built, type BotProc, runBuilt } from "./harness.ts";
import { slackBotEnv, slackHttp } from "../helpers/bot-env.ts";

/**
 * The outbox and schedules under `pnpm dev:worker` itself (the developer's
 * script, not the test stack's Worker), with the built Slack bot on the fake
 * Slack. The script passes `--var DUET_SCHEDULE_MIN_INTERVAL_S:1` on, so a
 * schedule runs every second. Its output is the Worker's log, read for what
 * a developer would see.
 */

const SECRET = "dev-worker-signing-secret";
const TOKEN = "dev-worker-outbox-token";

let built: Built;
let model: FakeModel;
let executor: FakeExecutor;
let slack: FakeSlack;
let worker: ChildProcess;
let log = "";
let client: WorkerClient;
let workerUrl: string;
let bot: BotProc;
let botUrl: string;
const dirs: string[] = [];

beforeAll(async () => {
  [built, model, executor, slack] = await Promise.all([buildBots(), startFakeModel(), startFakeExecutor(0), startFakeSlack()]);
  const home = mkdtempSync(join(tmpdir(), "duet-dev-outbox-"));
  dirs.push(home);
  const workerPort = await quietPort();
  workerUrl = `http://127.0.0.1:${workerPort}`;
  const args = ["run", "-s", "dev:worker", "--", "--port", String(workerPort), "--persist-to", join(home, "state"), "--var", "DUET_SCHEDULE_MIN_INTERVAL_S:1"];
  worker = spawn("npm", args, {
    cwd: REPO_ROOT,
    // A process group of its own, stopped whole at the end.
    detached: true,
    stdio: ["ignore", "pipe", "pipe"],
    env: {
      ...process.env,
      DUET_HOME: home,
      DUET_API_TOKEN: TOKEN,
      MODEL_PROVIDER: "openai",
      MODEL: "fake-model",
      OPENAI_BASE_URL: model.baseUrl,
      SANDBOX_URL: executor.url,
    },
  });
  worker.stdout!.on("data", (d) => (log += d));
  worker.stderr!.on("data", (d) => (log += d));
  await until(() => log.includes("Worker ready on"), () => `pnpm dev:worker did not become ready:\n${log}`, 90_000);
  client = new WorkerClient({ baseUrl: workerUrl, token: TOKEN, timeoutMs: 30_000 });
  bot = startSlackBot();
  botUrl = await botUrlOf(bot);
}, 180_000);

/** The built Slack bot in HTTP mode, against the fake Slack and the dev Worker. */
function startSlackBot(): BotProc {
  return runBuilt(built, "slack", slackBotEnv(slack, workerUrl, TOKEN, slackHttp(SECRET)));
}

async function botUrlOf(proc: BotProc): Promise<string> {
  const port = /listens for Slack on port (\d+)/;
  await until(() => port.test(proc.output()), () => `the bot did not start:\n${proc.output()}`, 30_000);
  return `http://127.0.0.1:${port.exec(proc.output())![1]}/slack/events`;
}

/** Polls `done` (outside a test, where expect.poll cannot run) until it holds, or fails with `why`. */
async function until(done: () => boolean, why: () => string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!done()) {
    if (Date.now() > deadline) throw new Error(why());
    await new Promise((r) => setTimeout(r, 100));
  }
}

afterAll(async () => {
  await bot?.stop();
  if (worker?.pid && worker.exitCode === null) {
    const exited = new Promise((r) => worker.once("exit", r));
    process.kill(-worker.pid, "SIGTERM");
    await exited;
  }
  await Promise.all([slack?.close(), model?.close(), executor?.close()]);
  built?.remove();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
}, 60_000);

/** Waits for the response_url post of a slash command and returns it as a person reads it. */
async function slashText(channel: string, text: string): Promise<string> {
  const fields = slashCommand(slack, { channel, text });
  await postCommand(botUrl, fields, { secret: SECRET });
  const id = fields.response_url.split("/").pop();
  const body = await slack.waitFor(() => slack.responses.find((r) => r.id === id)?.body, "the response_url post");
  return readable(body as { text: string; blocks?: Record<string, unknown>[] });
}

/** Top-level bot messages in the channel that a schedule's runs posted. */
function runsOf(channel: string, id: string): SlackMessage[] {
  return slack.ws.channel(channel).filter((m) => m.bot_id === slack.id.botId && !m.thread_ts && readable(m).includes(`Scheduled ask \`${id}\``));
}

/** A mention answered in its thread (the answer's end mark set). */
async function mention(channel: string, text: string) {
  const payload = mentionEvent(slack, { channel, text });
  const ts = String(payload.event.ts);
  expect((await postEvent(botUrl, payload, { secret: SECRET })).status).toBe(200);
  return { ts, replies: () => answerTo(slack, { channel, ts, threadTs: ts }) };
}

describe("the outbox under pnpm dev:worker", () => {
  it("a bot killed mid-turn is normal: no uncaught error in the Worker's log, and the turn is answered into the history", async () => {
    const channel = "CDEVKILLED";
    const room = `slack-${slack.id.teamId}-${channel}`;
    const doomed = startSlackBot();
    const url = await botUrlOf(doomed);
    const hold = `dev-killed-${Date.now()}`;
    const payload = mentionEvent(slack, { channel, text: `HOLD:${hold} CHUNK:5 SAY: Looking at it now for you <run>echo killed-bot-output</run>` });
    expect((await postEvent(url, payload, { secret: SECRET })).status).toBe(200);
    // The model is answering (its first piece sent, the rest held) and the bot follows the turn's stream: the bot dies now.
    await expect.poll(() => model.calls.filter((c) => JSON.stringify(c).includes(hold)).length, { timeout: 20_000 }).toBe(1);
    doomed.child.kill("SIGKILL");
    await doomed.exited;
    await fetch(`${model.url}/_release/${hold}`, { method: "POST" });
    await expect
      .poll(async () => (await client.history(room)).messages.some((m) => m.text.includes("killed-bot-output")), { timeout: 30_000 })
      .toBe(true);
    // The barrier: a failing model call the Worker logs as a refusal, logged after anything the hang-up made it log.
    await client.message("cli-dev-barrier", { text: "FAIL:503 log barrier" }).catch(() => undefined);
    await expect.poll(() => log, { timeout: 30_000 }).toContain("model refusal");
    expect(log).not.toContain("Uncaught");
    expect(log).not.toContain("Network connection lost");
  }, 90_000);

  it("a schedule's runs are posted by the built Slack bot, and none after unschedule", async () => {
    const channel = "CDEVSCHED";
    const made = await slashText(channel, "schedule every 1s SAY: dev tick <run>echo dev-sched</run>");
    const id = /Id `([a-z0-9]+)`/.exec(made)?.[1];
    expect(id, made).toBeDefined();
    const two = await slack.waitFor(() => (runsOf(channel, id!).length >= 2 ? runsOf(channel, id!) : undefined), "two scheduled runs in the channel");
    for (const m of two) expect(readable(m)).toMatch(/```\ndev-sched\n```/);

    const room = `slack-${slack.id.teamId}-${channel}`;
    const [{ nextRunAt }] = (await client.schedules(room)).schedules;
    expect(await slashText(channel, `unschedule ${id}`)).toContain(`removed schedule \`${id}\``);
    // The barrier: a mention whose answer the model holds until the would-be next run's time has passed.
    const hold = `dev-barrier-${Date.now()}`;
    const barrier = await mention(channel, `HOLD:${hold} SAY: barrier answer`);
    await expect.poll(() => Date.now(), { timeout: 10_000, interval: 100 }).toBeGreaterThan(nextRunAt + 1_000);
    await fetch(`${model.url}/_release/${hold}`, { method: "POST" });
    expect((await barrier.replies()).map((m) => readable(m)).join("\n")).toContain("barrier answer");
    // Every run asked before the unschedule is posted once; none was asked after it.
    const audit = (await client.audit(room)).entries;
    const asked = audit.filter((e) => e.kind === "scheduled-run" && e.scheduleId === id).length;
    expect(audit.findLastIndex((e) => e.kind === "scheduled-run" && e.scheduleId === id)).toBeLessThan(audit.findIndex((e) => e.kind === "unscheduled"));
    await expect.poll(() => runsOf(channel, id!).length, { timeout: 20_000 }).toBe(asked);
  }, 90_000);
});
