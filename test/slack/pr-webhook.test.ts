import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startExecutor, type RunningExecutor } from "@duet/sandbox";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { FakeGithub } from "../fakes/github.ts";
import { deliverWebhook, payloads } from "../fakes/github-webhooks.ts";
import type { FakeSlack } from "../fakes/slack/index.ts";
import { startGithubHost, type GithubHost } from "../helpers/github-app.ts";
import type { Stack } from "../helpers/stack.ts";
import { answerTo, botReplies, mention, newChannel, readable, startSlackSetup, type BotHandle, type SlackSetup } from "./harness.ts";

/**
 * The pull request talks back, as people in Slack see it: the real bolt bot
 * (thread rooms), the real Worker, the real executor, a fake GitHub over
 * `git http-backend`. A thread opens a pull request; GitHub's signed
 * webhooks then put the merge, and a review comment with Duet's answer, in
 * that thread (posted by the bot's delivery loop from the outbox).
 */

const APP_ID = "31340";
const SLUG = "duet-test";
const SECRET = "whsec-slack-0123456789";

let setup: SlackSetup;
let stack: Stack;
let slack: FakeSlack;
let bot: BotHandle;
/** A bot with the default room scope: a channel is one room. */
let channelBot: BotHandle;
let github: FakeGithub;
let host: GithubHost;
let executor: RunningExecutor;
let root: string;

beforeAll(async () => {
  host = await startGithubHost({ appId: APP_ID, slug: SLUG, webhookSecret: SECRET, repo: "acme/widgets", commits: [{ "README.md": "# Widgets\n" }] });
  github = host.github;
  root = mkdtempSync(join(tmpdir(), "duet-pr-webhook-"));
  const token = randomBytes(16).toString("hex");
  executor = await startExecutor({ port: 0, root, token }, () => {});
  setup = await startSlackSetup([{ DUET_SLACK_ROOM_SCOPE: "thread" }, {}], {
    executor: "real",
    vars: { SANDBOX_URL: executor.url, SANDBOX_TOKEN: token, ...host.vars },
  });
  ({ stack, slack } = setup);
  [bot, channelBot] = setup.bots;
}, 120_000);

afterAll(async () => {
  await setup?.stop();
  await executor?.close();
  if (root) rmSync(root, { recursive: true, force: true });
  await host?.stop();
});

/** The room links acme/widgets, the model changes it, a person opens the pull request: its number. */
async function openPr(room: string, title: string): Promise<number> {
  await api("PUT", `/api/rooms/${room}/repo`, { repo: "acme/widgets", userId: "U0ALICE" });
  await api("POST", `/api/rooms/${room}/repo/sync`);
  await stack.client.exec(room, { cmd: `cd ~/repo && echo ${title} >> README.md` });
  const proposal = await api("POST", `/api/rooms/${room}/repo/pr`, { userId: "U0ALICE", title });
  return (await api("POST", `/api/rooms/${room}/repo/pr/${proposal.id}/open`, { userId: "U0ALICE" })).number as number;
}

async function api(method: string, path: string, body?: unknown): Promise<Record<string, unknown>> {
  const res = await fetch(`${stack.workerUrl}${path}`, {
    method,
    headers: { authorization: `Bearer ${stack.token}`, "content-type": "application/json" },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const out = (await res.json()) as Record<string, unknown>;
  expect(res.status, JSON.stringify(out)).toBe(200);
  return out;
}

describe("a Duet pull request talks back in its Slack thread", () => {
  it("the merge and a review comment's answer appear in the thread; the answer is also a reply on the pull request", async () => {
    const channel = newChannel();
    const asked = await mention(slack, bot, { channel, text: `<@${slack.id.botUserId}> SAY: on it`, user: "U0ALICE" });
    await answerTo(slack, asked);
    const room = `slack-${slack.id.teamId}-${channel}-${asked.threadTs}`;
    const pr = { number: await openPr(room, "sprockets") };
    const before = botReplies(slack, channel, asked.threadTs).length;
    const hook = (event: string, payload: unknown) => deliverWebhook(`${stack.workerUrl}/github/webhook`, SECRET, event, payload);

    expect((await hook("pull_request", payloads.closed("acme/widgets", pr.number as number, true, "octocat"))).status).toBe(202);
    const merged = await slack.waitFor(() => botReplies(slack, channel, asked.threadTs).slice(before).find((m) => readable(m).includes("was merged")), "the merge note in the thread");
    expect(readable(merged)).toContain(`acme/widgets#${pr.number} was merged by octocat on GitHub.`);
    expect(readable(merged)).not.toContain("asked:");

    stack.model.answer("why sprockets", "Because widgets need sprockets.");
    expect((await hook("pull_request_review_comment", payloads.reviewComment("acme/widgets", pr.number as number, 77, "mona", `@${SLUG} why sprockets?`))).status).toBe(202);
    const answered = await slack.waitFor(() => {
      const replies = botReplies(slack, channel, asked.threadTs).map(readable);
      const note = replies.some((r) => r.includes("mona on GitHub") && r.includes("why sprockets?"));
      return note && replies.some((r) => r.includes("Because widgets need sprockets.")) ? replies : undefined;
    }, "the comment and Duet's answer to it in the thread");
    // Two bot replicas deliver from the outbox here, so which posts first is theirs to race; the outbox hands the comment out first (test/github-webhook.test.ts).
    expect(answered.filter((r) => r.includes("Because widgets need sprockets."))).toHaveLength(1);
    await slack.waitFor(() => github.comments.find((c) => c.number === pr.number && c.body.startsWith("@mona Because widgets need sprockets.")), "the reply on the pull request");
  });

  it("in a channel room, the note goes to the thread the pull request was asked for in, not to the channel", async () => {
    const channel = newChannel();
    const asked = await mention(slack, channelBot, { channel, text: `<@${slack.id.botUserId}> SAY: let us add cogs`, user: "U0ALICE" });
    await answerTo(slack, asked);
    const number = await openPr(`slack-${slack.id.teamId}-${channel}`, "cogs");
    const topLevel = () => slack.ws.channel(channel).filter((m) => m.bot_id === slack.id.botId && !m.thread_ts).length;
    const before = topLevel();
    const closed = await deliverWebhook(`${stack.workerUrl}/github/webhook`, SECRET, "pull_request", payloads.closed("acme/widgets", number, false, "hubot"));
    expect(closed.status).toBe(202);
    const note = await slack.waitFor(() => botReplies(slack, channel, asked.threadTs).find((m) => readable(m).includes("was closed without merging")), "the close note in the asking thread");
    expect(readable(note)).toContain(`acme/widgets#${number} was closed without merging by hubot on GitHub.`);
    expect(readable(note)).not.toContain("asked:");
    expect(topLevel()).toBe(before);
  });
});
