import { describe, expect, it } from "vitest";
import { startedForTests } from "../helpers/lifecycle.ts";
import { quickRetrySleep } from "../helpers/quick-retries.ts";
import { startStack, type Stack } from "../helpers/stack.ts";
import { interactionAnswer, mentionAnswer, startDiscordHarness, type DiscordHarness, startDiscordSetup } from "./harness.ts";

/** Gateway drops, REST rate limits and a Worker that is down, slow or failing. */

describe("Discord bot resilience", () => {
  let stack: Stack;
  let h: DiscordHarness;
  // The bot's waits between its tries of a Worker that is down are shortened; the tries are the same.
  startedForTests(() => startDiscordSetup({ workerRetrySleep: quickRetrySleep }), (s) => ({ stack, h } = s));

  it("acknowledged heartbeats give the client a latency", async () => {
    await h.fake.gateway.waitForOp(1);
    await expect.poll(() => h.bot.client.ws.ping, { timeout: 10_000 }).toBeGreaterThanOrEqual(0);
  });

  it.each([
    ["closed with a resumable code", 4000],
    ["cut without a close frame", "terminate"],
  ] as const)("a gateway connection %s is resumed, and the event sent meanwhile is handled", async (_how, code) => {
    const ch = h.fake.addChannel(h.guildId, "resume");
    const connections = h.fake.gateway.connections.length;
    const resumed = h.fake.gateway.waitForOp(6);
    h.fake.dropConnections(code);
    // Sent while the bot is disconnected: Discord replays it after RESUME.
    const msg = h.fake.message(ch, "SAY: after-resume-marker", { mention: true });
    await resumed;
    const [answer] = await mentionAnswer(h, msg);
    expect(answer.content).toContain("after-resume-marker");
    expect(h.fake.gateway.connections.slice(connections).map((c) => c.path)).toEqual(["/gateway-resume"]);
    expect(h.fake.gateway.received.filter((r) => r.op === 2)).toHaveLength(1);
  });

  it("a session Discord will not resume is identified afresh, and the next event is handled", async () => {
    const identified = h.fake.gateway.waitForOp(2);
    h.fake.gateway.invalidateSessions();
    h.fake.dropConnections(4000);
    await identified;
    const ch = h.fake.addChannel(h.guildId, "reidentify");
    const [answer] = await mentionAnswer(h, h.fake.message(ch, "SAY: after-identify-marker", { mention: true }));
    expect(answer.content).toContain("after-identify-marker");
  });

  it("REST rate limits are waited out, per route and global", async () => {
    const ch = h.fake.addChannel(h.guildId, "rate-limited");
    h.fake.rateLimitNext(2, { route: "POST /channels/:id/messages", retryAfterSeconds: 0.3 });
    const msg = h.fake.message(ch, "SAY: rate-limit-marker", { mention: true });
    const [answer] = await mentionAnswer(h, msg);
    expect(answer.content).toContain("rate-limit-marker");
    const posts = h.fake.calls.filter((c) => c.path === `/channels/${ch}/messages`).map((c) => c.status);
    expect(posts).toEqual([429, 429, 200]);

    h.fake.rateLimitNext(1, { route: "PATCH /webhooks", retryAfterSeconds: 0.3, global: true });
    const rec = h.fake.interaction(ch, { subcommand: "help" });
    const { text } = await interactionAnswer(h, rec);
    expect(text).toContain("/duet ask");
    expect(h.fake.calls.filter((c) => c.path.includes(rec.token) && c.method === "PATCH").map((c) => c.status)).toEqual([429, 200]);
  });

  it("a model error is explained to the user", async () => {
    const ch = h.fake.addChannel(h.guildId, "model-error");
    const { text } = await interactionAnswer(h, h.fake.interaction(ch, { subcommand: "ask", options: { prompt: "FAIL:500" } }));
    expect(text).toMatch(/The AI model failed to answer .*Please try again/);
    expect(text).not.toMatch(/at \w+ \(|Error:/);
  });

  it("cleanup packets with missing or odd fields do not stop the bot", async () => {
    const ch = h.fake.addChannel(h.guildId, "broken");
    h.fake.gateway.dispatch("THREAD_UPDATE", { id: "3", guild_id: h.guildId, thread_metadata: { archived: true } });
    h.fake.gateway.dispatch("THREAD_DELETE", { id: "2" });
    h.fake.gateway.dispatch("CHANNEL_DELETE", { id: "not-a-snowflake", guild_id: h.guildId, type: 0 });
    const [answer] = await mentionAnswer(h, h.fake.message(ch, "SAY: still-here", { mention: true }));
    expect(answer.content).toContain("still-here");
  });

  it("a Worker that is down gets a reply saying what happened and what to try", async () => {
    const ch = h.fake.addChannel(h.guildId, "worker-down");
    await stack.stopWorker();
    try {
      const { text } = await interactionAnswer(h, h.fake.interaction(ch, { subcommand: "ask", options: { prompt: "SAY: nobody home" } }));
      expect(text).toContain("can't be reached right now. Please try again in a minute");
      const [answer] = await mentionAnswer(h, h.fake.message(ch, "SAY: nobody home", { mention: true }));
      expect(answer.content).toContain("can't be reached right now");
      expect(answer.message_reference).toBeDefined();
    } finally {
      await stack.restartWorker();
    }
    const [back] = await mentionAnswer(h, h.fake.message(ch, "SAY: back-again", { mention: true }));
    expect(back.content).toContain("back-again");
  });
});

describe("Discord bot with a Worker that is slow or refuses it", () => {
  let stack: Stack;
  startedForTests(startStack, (started) => (stack = started));

  it("a Worker slower than the bot's deadline: the bot follows the turn it took back in, and the reply is its answer, never 'try again'", async () => {
    // Posted whole, the turn's stream is still followed: silent past the bot's deadline, it is joined again, as a live one is.
    const h = await startDiscordHarness(stack, { workerTimeoutMs: 1_000, env: () => ({ DUET_STREAMING: "off" }) });
    try {
      const ch = h.fake.addChannel(h.guildId, "slow");
      const { text, messages } = await interactionAnswer(h, h.fake.interaction(ch, { subcommand: "ask", options: { prompt: "SLOW:3000 SAY: late but answered" } }));
      expect(text).toContain("late but answered");
      expect(text).not.toMatch(/try again/i);
      expect(messages).toHaveLength(1);
    } finally {
      await h.stop();
    }
  });

  it("a wrong API token is reported as a configuration problem for an admin", async () => {
    const h = await startDiscordHarness({ workerUrl: stack.workerUrl, token: "not-the-token" });
    try {
      const ch = h.fake.addChannel(h.guildId, "unauthorized");
      const { text } = await interactionAnswer(h, h.fake.interaction(ch, { subcommand: "run", options: { command: "echo hi" } }));
      expect(text).toContain("DUET_API_TOKEN");
    } finally {
      await h.stop();
    }
  });
});
