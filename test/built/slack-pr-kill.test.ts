import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { mentionEvent, postEvent, startFakeSlack, type FakeSlack, type SlackMessage } from "../fakes/slack/index.ts";
import { startPrHost, type PrHost } from "../helpers/pr-host.ts";
import { startStack, type Stack } from "../helpers/stack.ts";
import { startWorkerTap, type TappedCall, type WorkerTap } from "../helpers/worker-tap.ts";
import { botReplies, readable } from "../slack/harness.ts";
import { buildBots, type Built, portFrom, runBuilt } from "./harness.ts";
import { slackBotEnv, slackHttp } from "../helpers/bot-env.ts";

/**
 * The proposal after an answer that ended with the model's `<pr>` survives
 * the bot: the built Slack bot is SIGKILLed after the confirm that marked the
 * answer delivered and before it asked for the proposal; the bot started
 * again posts the proposal, once, and the answer is not posted again. The
 * real Worker and bubblewrap executor, the fake GitHub over `git
 * http-backend`; the bot reaches the Worker through a tap that holds its
 * request for the proposal (the barrier: the bot dies right there).
 */

const SECRET = "pr-kill-signing-secret";

let built: Built;
let host: PrHost;
let stack: Stack;
let slack: FakeSlack;
let tap: WorkerTap;

beforeAll(async () => {
  built = await buildBots();
  host = await startPrHost();
  // Answers unconfirmed for half a second are offered in the feed (15 s in production).
  stack = await startStack({ executor: "real", vars: { ...host.vars, MODEL_TIMEOUT_MS: "30000", DUET_DELIVERY_GRACE_MS: "500" } });
  tap = await startWorkerTap(stack.workerUrl);
  slack = await startFakeSlack();
}, 180_000);
afterAll(async () => {
  await slack?.close();
  await tap?.close();
  await stack?.stop();
  await host?.stop();
  built?.remove();
});

function startBot() {
  return runBuilt(built, "slack", slackBotEnv(slack, tap.url, stack.token, slackHttp(SECRET)));
}

const proposing = (c: TappedCall) => c.method === "POST" && c.path.endsWith("/repo/pr");
const confirm = (c: TappedCall) => c.method === "POST" && c.path.endsWith("/deliveries");
const hasOpen = (m: SlackMessage) => JSON.stringify(m.blocks ?? []).includes("duet_pr_open");

describe("the proposal after an answer, with the built Slack bot", () => {
  it("a bot SIGKILLed between the answer's confirm and the proposal: after the restart the proposal is posted exactly once, the answer not again", async () => {
    const channel = "CPRKILL";
    const room = `slack-${slack.id.teamId}-${channel}`;
    await stack.client.setRepo(room, { repo: "acme/widgets", userId: "U0ALICE" });
    const first = startBot();
    let second: ReturnType<typeof startBot> | null = null;
    try {
      const port = await portFrom(first, "listens for Slack on port");
      tap.hold(proposing);
      const payload = mentionEvent(slack, { channel, text: "SAY: Added kappa. <run>cd ~/repo && echo kappa > src/k.txt</run>\n<pr>Add kappa</pr>", user: "U0ALICE" });
      const ts = String(payload.event.ts);
      expect((await postEvent(`http://127.0.0.1:${port}/slack/events`, payload, { secret: SECRET })).status).toBe(200);
      // The answer is posted and the room confirmed it delivered; the bot now asks for the proposal, held: it dies here.
      await expect.poll(() => tap.calls.filter(proposing).length, { timeout: 60_000 }).toBe(1);
      const confirmed = tap.calls.filter((c) => confirm(c) && (c.body as { final?: boolean }).final !== false);
      expect(confirmed.map((c) => c.status)).toEqual([200]);
      first.child.kill("SIGKILL");
      await first.exited;
      tap.hold(() => false);
      const answer = botReplies(slack, channel, ts);
      expect(answer).toHaveLength(1);
      expect(readable(answer[0])).toContain("Added kappa.");
      expect(answer.some(hasOpen)).toBe(false);

      second = startBot();
      // The dead bot's lease on the proposal runs out (15 s), and the room offers it to the restarted bot.
      const proposal = await slack.waitFor(() => botReplies(slack, channel, ts).find(hasOpen), "the proposal after the restart", 90_000);
      expect(readable(proposal)).toMatch(/<@U0ALICE> proposes a pull request to `acme\/widgets` \(`main`\): `Add kappa`/);
      await expect.poll(() => tap.calls.filter((c) => confirm(c) && (c.body as { proposed?: boolean }).proposed === true && c.status === 200).length, { timeout: 30_000 }).toBe(1);

      // Barrier: a later answer through the same delivery loop is posted after anything more the first could have caused.
      const deliver = { platform: "slack" as const, place: { channel, threadTs: ts, ts } };
      await stack.client.message(room, { text: "SAY: later-marker", userId: "U0ALICE", idempotencyKey: "pr-kill-later", deliver });
      await slack.waitFor(() => botReplies(slack, channel, ts).find((m) => readable(m).includes("later-marker")), "the later answer", 60_000);
      const thread = botReplies(slack, channel, ts);
      expect(thread.filter(hasOpen)).toHaveLength(1);
      expect(thread.filter((m) => readable(m).includes("Added kappa."))).toHaveLength(1);
      expect(thread.indexOf(proposal)).toBeGreaterThan(thread.indexOf(answer[0]));
    } catch (err) {
      console.log("BOT1", first.output(), "BOT2", second?.output());
      throw err;
    } finally {
      if (second) expect(await second.stop()).toBe(0);
    }
  }, 240_000);
});
