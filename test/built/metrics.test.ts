import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startFakeDiscord, type FakeDiscord } from "../fakes/discord/index.ts";
import { mentionEvent, postEvent, startFakeSlack, type FakeSlack } from "../fakes/slack/index.ts";
import { startStack, type Stack } from "../helpers/stack.ts";
import { answerTo, readable } from "../slack/harness.ts";
import { buildBots, type Built, portFrom, runBuilt } from "./harness.ts";
import { slackBotEnv } from "../helpers/bot-env.ts";

/**
 * `GET /metrics` of the built bots (prom-client bundled in) against the fake
 * platforms and the real Worker: after one answered mention or command the
 * acks, their latency and the turns in flight read right, a 429 from Slack is
 * counted, and no token or user id appears anywhere in the text.
 */

const SECRET = "metrics-signing-secret";

let built: Built;
let stack: Stack;
let slack: FakeSlack;
let discord: FakeDiscord;

beforeAll(async () => {
  built = await buildBots();
  stack = await startStack();
  slack = await startFakeSlack();
  discord = await startFakeDiscord({ heartbeatIntervalMs: 1_000 });
}, 120_000);
afterAll(async () => {
  await discord?.close();
  await slack?.close();
  await stack?.stop();
  built?.remove();
});

const slackEnv = (extra: Record<string, string>) => slackBotEnv(slack, stack.workerUrl, stack.token, extra);

async function scrape(port: number): Promise<{ status: number; type: string; text: string }> {
  const res = await fetch(`http://127.0.0.1:${port}/metrics`);
  return { status: res.status, type: res.headers.get("content-type") ?? "", text: await res.text() };
}

/** Scrapes until no turn is in flight: an answer is seen before its handler has ended (the last edit, the ✅). */
async function settled(port: number, platform: string): Promise<string> {
  const deadline = Date.now() + 15_000;
  for (;;) {
    const { text } = await scrape(port);
    if (text.includes(`duet_turns_in_flight{platform="${platform}"} 0\n`) || Date.now() > deadline) return text;
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** One sample's value: `name{labels} value`, labels in prom-client's order; 0 when absent. */
function sample(text: string, series: string): number {
  const line = text.split("\n").find((l) => l.startsWith(`${series} `));
  return line ? Number(line.slice(series.length + 1)) : 0;
}

/** Every label value of Duet's own series: they must all come from the few the bots set. */
function labelValues(text: string): Set<string> {
  const ours = text.split("\n").filter((l) => l.startsWith("duet_")).join("\n");
  return new Set([...ours.matchAll(/(\w+)="([^"]*)"/g)].filter(([, name]) => name !== "le").map(([, , v]) => v));
}

function expectNothingSecret(text: string, secrets: string[]): void {
  for (const s of secrets) expect(text).not.toContain(s);
  // Only bounded values: platforms and ack kinds.
  for (const v of labelValues(text)) expect(v).toMatch(/^(slack|discord|event|command|click)$/);
}

describe("GET /metrics on the built Slack bot", () => {
  it("Socket Mode: after a mention answered with a command, shows its ack, no turn in flight, a 429, and no secret", async () => {
    const bot = runBuilt(built, "slack", slackEnv({ SLACK_APP_TOKEN: slack.id.appToken, HEALTH_PORT: "0" }));
    try {
      const port = await portFrom(bot, "/healthz on port");
      await bot.waitForOutput("connected to Slack over Socket Mode");
      const before = await scrape(port);
      expect(before.status).toBe(200);
      expect(before.type).toBe("text/plain; version=0.0.4; charset=utf-8");
      expect(sample(before.text, 'duet_acks_total{platform="slack",kind="event"}')).toBe(0);
      expect(sample(before.text, 'duet_platform_rate_limited_total{platform="slack"}')).toBe(0);
      expect(before.text).toMatch(/^process_resident_memory_bytes \d+/m);
      expect(before.text).toMatch(/^nodejs_eventloop_lag_seconds /m);
      // HEALTH_PORT's own server: other methods, other paths and a hostile query.
      const post = await fetch(`http://127.0.0.1:${port}/metrics`, { method: "POST", body: "x".repeat(100_000) });
      expect([post.status, post.headers.get("allow")]).toEqual([405, "GET, HEAD"]);
      expect((await fetch(`http://127.0.0.1:${port}/metrics/${"x".repeat(5000)}`)).status).toBe(404);
      expect((await fetch(`http://127.0.0.1:${port}/metrics?%00=%ff<script>`)).status).toBe(200);
      const head = await fetch(`http://127.0.0.1:${port}/metrics`, { method: "HEAD" });
      expect([head.status, await head.text()]).toEqual([200, ""]);

      // Slack answers the first reaction 429 once: waited out, and counted.
      slack.rateLimit("reactions.add", 1, 1);
      const channel = "CMETRICSSOCK";
      const payload = mentionEvent(slack, { channel, text: "SAY: metrics <run>echo metrics-ok</run>" });
      const ts = String(payload.event.ts);
      await slack.socket.deliver("events_api", payload);
      const replies = await answerTo(slack, { channel, ts, threadTs: ts });
      expect(replies.map(readable).join("\n")).toMatch(/metrics-ok/);

      const after = { text: await settled(port, "slack") };
      expect(sample(after.text, 'duet_acks_total{platform="slack",kind="event"}')).toBeGreaterThanOrEqual(1);
      expect(sample(after.text, 'duet_ack_seconds_count{platform="slack",kind="event"}')).toBeGreaterThanOrEqual(1);
      expect(sample(after.text, 'duet_ack_seconds_bucket{le="3",platform="slack",kind="event"}')).toBeGreaterThanOrEqual(1);
      expect(after.text).toMatch(/^duet_turns_in_flight\{platform="slack"\} 0$/m);
      expect(sample(after.text, 'duet_platform_rate_limited_total{platform="slack"}')).toBeGreaterThanOrEqual(1);
      expect(sample(after.text, 'duet_pace_wait_seconds_count{platform="slack"}')).toBeGreaterThanOrEqual(1);
      expectNothingSecret(after.text, [slack.id.botToken, slack.id.appToken, stack.token, String(payload.event.user), channel, ts]);
    } finally {
      expect(await bot.stop()).toBe(0);
    }
  }, 120_000);

  it("HTTP mode: serves /metrics on SLACK_PORT with the front's ack of a signed mention; other methods and paths are refused", async () => {
    const bot = runBuilt(built, "slack", slackEnv({ SLACK_SIGNING_SECRET: SECRET, SLACK_PORT: "0" }));
    try {
      const port = await portFrom(bot, "listens for Slack on port");
      const channel = "CMETRICSHTTP";
      const payload = mentionEvent(slack, { channel, text: "SAY: metrics over http" });
      const ts = String(payload.event.ts);
      expect((await postEvent(`http://127.0.0.1:${port}/slack/events`, payload, { secret: SECRET })).status).toBe(200);
      await answerTo(slack, { channel, ts, threadTs: ts });

      const after = { text: await settled(port, "slack") };
      expect(sample(after.text, 'duet_acks_total{platform="slack",kind="event"}')).toBe(1);
      expect(sample(after.text, 'duet_ack_seconds_count{platform="slack",kind="event"}')).toBe(1);
      expect(after.text).toMatch(/^duet_turns_in_flight\{platform="slack"\} 0$/m);
      expectNothingSecret(after.text, [slack.id.botToken, SECRET, stack.token, String(payload.event.user), channel, ts]);

      expect((await fetch(`http://127.0.0.1:${port}/metrics`, { method: "POST", body: "x" })).status).not.toBe(200);
      expect((await fetch(`http://127.0.0.1:${port}/metrics/${"x".repeat(5000)}`)).status).not.toBe(200);
      expect((await fetch(`http://127.0.0.1:${port}/metrics?name=%00%ff<script>`)).status).toBe(200);
    } finally {
      expect(await bot.stop()).toBe(0);
    }
  }, 120_000);
});

describe("GET /metrics on the built Discord bot", () => {
  it("after /duet ask answered, shows the command's ack and no turn in flight, and no token or user id", async () => {
    const guildId = discord.addGuild("metrics");
    const bot = runBuilt(built, "discord", {
      DISCORD_TOKEN: discord.token,
      DISCORD_API_URL: discord.api,
      DUET_WORKER_URL: stack.workerUrl,
      DUET_API_TOKEN: stack.token,
      HEALTH_PORT: "0",
    });
    try {
      const port = await portFrom(bot, "/healthz on port");
      await bot.waitForOutput("connected as Duet");
      const ask = discord.interaction(discord.addChannel(guildId, "metrics"), { subcommand: "ask", options: { prompt: "SAY: counted <run>echo discord-metrics</run>" } });
      await discord.waitForCall(() => ask.original?.content?.includes("discord-metrics") === true);

      const after = { text: await settled(port, "discord") };
      expect(sample(after.text, 'duet_acks_total{platform="discord",kind="command"}')).toBe(1);
      expect(sample(after.text, 'duet_ack_seconds_count{platform="discord",kind="command"}')).toBe(1);
      expect(after.text).toMatch(/^duet_turns_in_flight\{platform="discord"\} 0$/m);
      expectNothingSecret(after.text, [discord.token, stack.token, guildId]);
    } finally {
      expect(await bot.stop()).toBe(0);
    }
  }, 120_000);
});
