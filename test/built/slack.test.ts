import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { mentionEvent, postEvent, startFakeSlack, type FakeSlack } from "../fakes/slack/index.ts";
import { startStack, type Stack } from "../helpers/stack.ts";
import { answerTo, readable } from "../slack/harness.ts";
import { type BotProc, buildBots, type Built, healthBecomes, healthz, portFrom, runBuilt } from "./harness.ts";
import { slackBotEnv } from "../helpers/bot-env.ts";

/**
 * The built Slack bot (`pnpm build`, plain node, no node_modules) against the
 * fake Slack and the real Worker: HTTP mode answers Slack's URL check and a
 * mention, /healthz follows the Socket Mode connection, a Worker token the
 * Worker refuses stops start-up, and HTTP mode's ack front costs no more
 * memory than a thread of its own.
 */

const SECRET = "built-signing-secret";

let built: Built;
let stack: Stack;
let slack: FakeSlack;

beforeAll(async () => {
  built = await buildBots();
  stack = await startStack();
  slack = await startFakeSlack();
});
afterAll(async () => {
  await slack?.close();
  await stack?.stop();
  built?.remove();
});

const env = (extra: Record<string, string>) => slackBotEnv(slack, stack.workerUrl, stack.token, extra);

describe("the built Slack bot in HTTP mode", () => {
  it("answers a signed url_verification and a mention, serves /healthz on SLACK_PORT, and stops on SIGTERM", async () => {
    const bot = runBuilt(built, "slack", env({ SLACK_SIGNING_SECRET: SECRET, SLACK_PORT: "0" }));
    try {
      const port = await portFrom(bot, "listens for Slack on port");
      const url = `http://127.0.0.1:${port}/slack/events`;

      const check = await postEvent(url, { type: "url_verification", token: "legacy", challenge: "built-challenge-42" }, { secret: SECRET });
      expect(check.status).toBe(200);
      expect(check.text).toContain("built-challenge-42");
      const forged = await postEvent(url, { type: "url_verification", token: "legacy", challenge: "forged" }, { secret: "not-the-secret" });
      expect(forged.status).toBe(401);

      const payload = mentionEvent(slack, { channel: "CBUILTHTTP", text: "SAY: answered by the built bot" });
      const ts = String(payload.event.ts);
      expect((await postEvent(url, payload, { secret: SECRET })).status).toBe(200);
      const replies = await answerTo(slack, { channel: "CBUILTHTTP", ts, threadTs: ts });
      expect(replies.map(readable).join("\n")).toContain("answered by the built bot");

      expect(await healthz(port)).toEqual({ status: 200, body: { ok: true } });
    } finally {
      expect(await bot.stop()).toBe(0);
    }
  });
});

describe("the built Slack bot in Socket Mode", () => {
  it("answers /healthz 200 while connected and 503 with the reason once the socket is down", async () => {
    const bot = runBuilt(built, "slack", env({ SLACK_APP_TOKEN: slack.id.appToken, HEALTH_PORT: "0" }));
    try {
      const port = await portFrom(bot, "/healthz on port");
      await bot.waitForOutput("connected to Slack over Socket Mode");
      expect(await healthBecomes(port, 200)).toEqual({ ok: true });

      // Slack goes away: the connection drops and no new one can be opened.
      slack.refuse("apps.connections.open", "internal_error");
      slack.socket.drop();
      const down = await healthBecomes(port, 503);
      expect(down.ok).toBe(false);
      expect(down.reason).toMatch(/Socket Mode/);
    } finally {
      slack.refuse("apps.connections.open", "");
      bot.child.kill("SIGKILL");
      await bot.exited;
    }
  });
});

describe("the built Slack bot at start-up", () => {
  it("exits non-zero with one line when the Worker refuses DUET_API_TOKEN", async () => {
    const bot = runBuilt(built, "slack", env({ SLACK_SIGNING_SECRET: SECRET, SLACK_PORT: "0", DUET_API_TOKEN: "not-the-workers-token" }));
    expect(await bot.exited).toBe(1);
    expect(bot.output().trim().split("\n")).toEqual([expect.stringMatching(/^\[slack\] could not start: .*refused DUET_API_TOKEN/)]);
  });
});

/** What /proc says of a running bot's memory, in MiB: resident now (VmRSS) and at its peak (VmHWM). */
function memoryMiB(bot: BotProc): { resident: number; peak: number } {
  const status = readFileSync(`/proc/${bot.child.pid}/status`, "utf8");
  const mib = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, "m").exec(status)?.[1]) / 1024;
  return { resident: mib("VmRSS"), peak: mib("VmHWM") };
}

/** Starts the built bot, has it answer one mention (its first Worker answers read, the turn over), reads its memory, stops it. */
async function memoryAfterOneAnswer(mode: "http" | "socket"): Promise<{ resident: number; peak: number }> {
  const bot = runBuilt(built, "slack", env(mode === "http" ? { SLACK_SIGNING_SECRET: SECRET, SLACK_PORT: "0" } : { SLACK_APP_TOKEN: slack.id.appToken }));
  try {
    const channel = `CBUILTMEM${mode.toUpperCase()}`;
    const payload = mentionEvent(slack, { channel, text: `SAY: answered in ${mode} mode` });
    const ts = String(payload.event.ts);
    if (mode === "http") {
      const port = await portFrom(bot, "listens for Slack on port");
      expect((await postEvent(`http://127.0.0.1:${port}/slack/events`, payload, { secret: SECRET })).status).toBe(200);
    } else {
      await bot.waitForOutput("connected to Slack over Socket Mode");
      await slack.socket.deliver("events_api", payload);
    }
    const replies = await answerTo(slack, { channel, ts, threadTs: ts });
    expect(replies.map(readable).join("\n")).toContain(`answered in ${mode} mode`);
    return memoryMiB(bot);
  } finally {
    expect(await bot.stop()).toBe(0);
  }
}

describe("the built Slack bot's memory", () => {
  // Measured on a 2-core Linux machine with Node 20: about 73 MiB (Socket Mode) and 84 MiB (HTTP mode, the ack
  // front's thread included) after one answer, peaks under 90 MiB. A compile's scratch memory that malloc keeps
  // or needs at once (see scripts/build/runtime.ts) shows as 95-115 MiB.
  // The bounds leave room for a busier machine than the one measured, and stay below what the compile's scratch shows.
  it.each(["http", "socket"] as const)("answers a mention in %s mode holding under 95 MiB resident, never past 110 MiB", async (mode) => {
    const { resident, peak } = await memoryAfterOneAnswer(mode);
    expect(resident, "resident after the answer (MiB)").toBeLessThan(95);
    expect(peak, "peak resident (MiB)").toBeLessThan(110);
  });
});
