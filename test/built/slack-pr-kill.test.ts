import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buttonClick, mentionEvent, postEvent, postInteraction, startFakeSlack, type FakeSlack, type SlackMessage } from "../fakes/slack/index.ts";
import { startPrHost, type PrHost } from "../helpers/pr-host.ts";
import { QUICK_DELIVERY } from "../helpers/quick-delivery.ts";
import { startStack, type Stack } from "../helpers/stack.ts";
import { startWorkerTap, type TappedCall, type WorkerTap } from "../helpers/worker-tap.ts";
import { botReplies, readable } from "../slack/harness.ts";
import { type BotProc, buildBots, type Built, portFrom, runBuilt } from "./harness.ts";
import { slackBotEnv, slackHttp } from "../helpers/bot-env.ts";

/**
 * A pull request in a thread survives the bot, with the real Worker and
 * bubblewrap executor and the fake GitHub over `git http-backend`; the bot
 * reaches the Worker through a tap.
 *
 * The proposal after an answer that ended with the model's `<pr>`: the built
 * Slack bot is SIGKILLed after the confirm that marked the answer delivered
 * and before it asked for the proposal (the tap holds that request: the
 * barrier); the bot started again posts the proposal, once, and the answer
 * is not posted again.
 *
 * The link after a click on Open: the bot is SIGKILLed after the Worker
 * pushed and opened the pull request and before the thread showed it (its
 * edit of the proposal is held at the fake Slack: the barrier, and it never
 * lands). The bot started again takes the next click on Open, which the
 * Worker answers with the pull request it already opened: the thread then
 * shows the link exactly once, and GitHub has one pull request.
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
  // Answers unconfirmed for half a second are offered in the feed, leased 3 s to the bot that takes one (15 s each in production).
  stack = await startStack({ executor: "real", vars: { ...host.vars, MODEL_TIMEOUT_MS: "30000", ...QUICK_DELIVERY } });
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
const valueOf = (msg: SlackMessage) => ((msg.blocks ?? []).find((b) => b.type === "actions") as { elements: { value: string }[] }).elements[0].value;

/**
 * Links acme/widgets to `channel`'s room, starts a bot and mentions it there
 * with an answer that changes a file and ends with `<pr>` (`before`: just
 * before the mention is sent).
 */
async function askForKappa(channel: string, before: () => void = () => {}) {
  await stack.client.setRepo(`slack-${slack.id.teamId}-${channel}`, { repo: "acme/widgets", userId: "U0ALICE" });
  const bot = startBot();
  const port = await portFrom(bot, "listens for Slack on port").catch((err) => {
    console.log("BOT", bot.output());
    throw err;
  });
  before();
  const payload = mentionEvent(slack, { channel, text: "SAY: Added kappa. <run>cd ~/repo && echo kappa > src/k.txt</run>\n<pr>Add kappa</pr>", user: "U0ALICE" });
  expect((await postEvent(`http://127.0.0.1:${port}/slack/events`, payload, { secret: SECRET })).status).toBe(200);
  return { bot, port, ts: String(payload.event.ts) };
}

/**
 * Runs `test` with the bot `first` and `restart`, which starts a second; when
 * it fails, prints both bots' output. The second is stopped at the end and must exit cleanly.
 */
async function withRestart(first: BotProc, test: (restart: () => BotProc) => Promise<void>): Promise<void> {
  let second = null as BotProc | null;
  try {
    await test(() => (second = startBot()));
  } catch (err) {
    console.log("BOT1", first.output(), "BOT2", second?.output());
    throw err;
  } finally {
    if (second) expect(await second.stop()).toBe(0);
  }
}

describe("the proposal after an answer, with the built Slack bot", () => {
  it("a bot SIGKILLed between the answer's confirm and the proposal: after the restart the proposal is posted exactly once, the answer not again", async () => {
    const channel = "CPRKILL";
    const room = `slack-${slack.id.teamId}-${channel}`;
    const { bot: first, ts } = await askForKappa(channel, () => tap.hold(proposing));
    await withRestart(first, async (restart) => {
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

      restart();
      // The dead bot's lease on the proposal runs out (DUET_DELIVERY_LEASE_MS), and the room offers it to the restarted bot.
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
    });
  }, 240_000);
});

describe("the pull request's link after Open, with the built Slack bot", () => {
  it("a bot SIGKILLed after the Worker opened the pull request and before the thread showed it: the next click shows the link in the thread exactly once, and GitHub has one pull request", async () => {
    const channel = "CPROPENKILL";
    const { bot: first, port, ts } = await askForKappa(channel);
    await withRestart(first, async (restart) => {
      const proposal = await slack.waitFor(() => botReplies(slack, channel, ts).find(hasOpen), "the proposal in the thread", 60_000);
      const branch = /duet\/add-kappa-[0-9a-f]{6}/.exec(readable(proposal))![0];

      // The bot's first call to Slack after the Worker's answer is held: the pull request is open, the thread shows nothing yet.
      const held = slack.hold("chat.update");
      const open = buttonClick(slack, { channel, messageTs: proposal.ts, actionId: "duet_pr_open", value: valueOf(proposal), user: "U0ALICE" });
      expect((await postInteraction(`http://127.0.0.1:${port}/slack/events`, open, { secret: SECRET })).status).toBe(200);
      await held.arrived;
      expect(host.github.pulls.filter((p) => p.head === branch)).toHaveLength(1);
      first.child.kill("SIGKILL");
      await first.exited;
      // The dead bot's edit never lands: the call it left at Slack is refused, as one that never arrived.
      slack.refuse("chat.update", "request_timeout");
      held.release();
      await slack.waitFor(() => slack.callsOf("chat.update").some((c) => c.error === "request_timeout") || undefined, "the dead bot's edit refused");
      slack.refuse("chat.update", null);
      const pull = host.github.pulls.find((p) => p.head === branch)!;
      expect(botReplies(slack, channel, ts).filter((m) => readable(m).includes(pull.html_url))).toHaveLength(0);

      const again = await portFrom(restart(), "listens for Slack on port");
      const ephemerals = slack.ws.ephemeral.length;
      const retry = buttonClick(slack, { channel, messageTs: proposal.ts, actionId: "duet_pr_open", value: valueOf(proposal), user: "U0ALICE" });
      expect((await postInteraction(`http://127.0.0.1:${again}/slack/events`, retry, { secret: SECRET })).status).toBe(200);
      // Barrier: the clicker is told it is open, the click's last word; everything the click does to the thread came before it.
      const told = await slack.waitFor(() => slack.ws.ephemeral.slice(ephemerals).find((e) => e.channel === channel && e.user === "U0ALICE"), "the clicker told", 60_000);
      expect(readable(told)).toContain(`This change is already opened: ${pull.html_url}`);

      const thread = botReplies(slack, channel, ts);
      const showing = thread.filter((m) => readable(m).includes(pull.html_url));
      expect(showing).toHaveLength(1);
      expect(readable(showing[0])).toContain(`<@U0ALICE> opened pull request #${pull.number} from \`${branch}\`: ${pull.html_url}`);
      expect(thread.filter(hasOpen)).toHaveLength(0);
      expect(host.github.pulls.filter((p) => p.head === branch)).toHaveLength(1);
      expect(host.hostGit("diff", "--name-only", "main", branch)).toBe("src/k.txt");
    });
  }, 240_000);
});
