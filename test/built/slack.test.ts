import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { mentionEvent, postEvent, startFakeSlack, type FakeSlack } from "../fakes/slack/index.ts";
import { startStack, type Stack } from "../helpers/stack.ts";
import { answerTo, readable } from "../slack/harness.ts";
import { buildBots, type Built, healthBecomes, healthz, portFrom, runBuilt } from "./harness.ts";

/**
 * The built Slack bot (`pnpm build`, plain node, no node_modules) against the
 * fake Slack and the real Worker: HTTP mode answers Slack's URL check and a
 * mention, /healthz follows the Socket Mode connection, and a Worker token the
 * Worker refuses stops start-up.
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

const env = (extra: Record<string, string>) => ({
  SLACK_BOT_TOKEN: slack.id.botToken,
  SLACK_API_URL: slack.apiUrl,
  DUET_WORKER_URL: stack.workerUrl,
  DUET_API_TOKEN: stack.token,
  ...extra,
});

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
