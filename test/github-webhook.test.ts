import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { FakeGithub } from "./fakes/github.ts";
import { deliverWebhook, payloads } from "./fakes/github-webhooks.ts";
import { startGithubHost, type GithubHost } from "./helpers/github-app.ts";
import { startSandboxStack, type SandboxStack } from "./helpers/sandbox-stack.ts";
import { workerApi } from "./helpers/worker-api.ts";

/**
 * The pull request talks back: GitHub's webhook, signed, delivered to the
 * real Worker (workerd) about a pull request a room opened through the real
 * executor, a fake GitHub and `git http-backend`. What a person would see is
 * what the Slack bot reads from the outbox to post in the thread, and the
 * comments on the pull request in the fake GitHub.
 */

const APP_ID = "31339";
const SLUG = "duet-test";
const SECRET = "whsec-test-0123456789";
/** A Slack thread room: its notes go to channel C1, thread 1700000000.000100, of team T1. */
const ROOM = "slack-T1-C1-1700000000.000100";

let github: FakeGithub;
let host: GithubHost;
let sandbox: SandboxStack;
/** The pull request ROOM opened. */
let pr: { url: string; number: number };

const api = workerApi(() => sandbox.stack);

/** The room's audit entries of what GitHub said became of its pull request. */
async function prAudit(): Promise<Record<string, unknown>[]> {
  const audit = await api("GET", `/api/rooms/${ROOM}/audit`);
  expect(audit.status).toBe(200);
  return (audit.body.entries as Record<string, unknown>[]).filter((e) => e.kind === "pr-merged" || e.kind === "pr-closed");
}

const hook = (event: string, payload: unknown, opts?: Parameters<typeof deliverWebhook>[4]) => deliverWebhook(`${sandbox.stack.workerUrl}/github/webhook`, SECRET, event, payload, opts);

interface Item {
  roomId: string;
  key: string;
  deliver: { platform: string; place: Record<string, string> };
  answer: { reply: string };
}

/**
 * What the Slack bot would post now: the feed's items for ROOM, each
 * confirmed as posted (as the bot does), so the next read sees only new ones.
 */
async function posted(waitMs: number, count = 1): Promise<Item[]> {
  const mine: Item[] = [];
  const until = Date.now() + waitMs;
  do {
    const read = await api("GET", `/api/deliveries/slack?waitMs=${Math.min(2000, Math.max(0, until - Date.now()))}`);
    expect(read.status).toBe(200);
    for (const item of (read.body.items as Item[]).filter((i) => i.roomId === ROOM)) {
      mine.push(item);
      expect((await api("POST", `/api/rooms/${ROOM}/deliveries`, { key: item.key, messageId: `1700000001.00${mine.length}`, final: true })).status).toBe(200);
    }
  } while (mine.length < count && Date.now() < until);
  return mine;
}

beforeAll(async () => {
  host = await startGithubHost({ appId: APP_ID, slug: SLUG, webhookSecret: SECRET, repo: "acme/widgets", commits: [{ "README.md": "# Widgets\n" }, { "src/a.txt": "alpha\n" }] });
  github = host.github;
  sandbox = await startSandboxStack({ wire: ({ url, token }) => ({ SANDBOX_URL: url, SANDBOX_TOKEN: token, ...host.vars }) });
  // The room links the repository, the model changes it, a person opens the pull request.
  expect((await api("PUT", `/api/rooms/${ROOM}/repo`, { repo: "acme/widgets", userId: "U1" })).status).toBe(200);
  expect((await api("POST", `/api/rooms/${ROOM}/repo/sync`)).status).toBe(200);
  await sandbox.stack.client.exec(ROOM, { cmd: "cd ~/repo && echo ALPHA >> src/a.txt" });
  const proposal = await api("POST", `/api/rooms/${ROOM}/repo/pr`, { userId: "U1", title: "Shout alpha" });
  expect(proposal.status).toBe(200);
  const opened = await api("POST", `/api/rooms/${ROOM}/repo/pr/${proposal.body.id}/open`, { userId: "U1" });
  expect(opened.status).toBe(200);
  pr = { url: opened.body.url as string, number: opened.body.number as number };
}, 120_000);

afterAll(async () => {
  await sandbox?.stop();
  await host?.stop();
});

describe("GitHub's webhook tells the room's thread about its pull request", () => {
  it("merged: the thread gets who merged it and the link, once, even when GitHub delivers it again", async () => {
    const merged = await hook("pull_request", payloads.closed("acme/widgets", pr.number, true, "octocat"), { id: "d-merge-1" });
    expect(merged).toEqual({ status: 202, body: { handled: "merged" } });
    const items = await posted(10_000);
    expect(items).toHaveLength(1);
    expect(items[0].deliver).toEqual({ platform: "slack", place: { channel: "C1", team: "T1", threadTs: "1700000000.000100", ts: "1700000000.000100", github: `acme/widgets#${pr.number}` } });
    expect(items[0].answer.reply).toBe(`🎉 acme/widgets#${pr.number} was merged by octocat on GitHub. ${pr.url.replace(/^.*\/acme/, "https://github.example/acme")}`);

    // The same delivery again (GitHub's "Redeliver"): answered, nothing posted twice.
    const again = await hook("pull_request", payloads.closed("acme/widgets", pr.number, true, "octocat"), { id: "d-merge-1" });
    expect(again).toEqual({ status: 200, body: { duplicate: true } });
    expect(await posted(1500)).toEqual([]);
    // The room's audit says who merged it, once.
    expect(await prAudit()).toEqual([{ at: expect.any(Number), kind: "pr-merged", repo: "acme/widgets", branch: expect.stringMatching(/^duet\/shout-alpha-/), url: expect.stringContaining(`/acme/widgets/pull/${pr.number}`), decidedBy: "octocat" }]);
  });

  it("closed without merging: the thread says so, naming who closed it", async () => {
    const closed = await hook("pull_request", payloads.closed("acme/widgets", pr.number, false, "hubot"), { id: "d-close-1" });
    expect(closed).toEqual({ status: 202, body: { handled: "closed" } });
    const items = await posted(10_000);
    expect(items.map((i) => i.answer.reply)).toEqual([`acme/widgets#${pr.number} was closed without merging by hubot on GitHub. https://github.example/acme/widgets/pull/${pr.number}`]);
    expect((await prAudit()).map((e) => [e.kind, e.decidedBy])).toEqual([
      ["pr-merged", "octocat"],
      ["pr-closed", "hubot"],
    ]);
  });

  it("a review comment that mentions the App starts a turn: its answer is posted in the thread and as a reply on the pull request", async () => {
    sandbox.stack.model.answer("Please explain the ALPHA line", "It makes alpha louder, as the issue asked.");
    const commentsBefore = github.comments.length;
    const asked = await hook("pull_request_review_comment", payloads.reviewComment("acme/widgets", pr.number, 501, "mona", `@${SLUG} Please explain the ALPHA line`), { id: "d-comment-1" });
    expect(asked).toEqual({ status: 202, body: { handled: "comment" } });

    // The thread sees the comment, quoted, then Duet's answer.
    const items = await posted(20_000, 2);
    expect(items).toHaveLength(2);
    for (const item of items) expect(item.deliver.place).toMatchObject({ channel: "C1", threadTs: "1700000000.000100" });
    expect(items[0].answer.reply).toBe(`mona on GitHub (acme/widgets#${pr.number}, src/a.txt line 2) https://github.example/acme/widgets/pull/${pr.number}#discussion_r501:\n> @${SLUG} Please explain the ALPHA line`);
    expect(items[1].answer.reply).toContain("It makes alpha louder, as the issue asked.");
    // The model was told who wrote it and where, with the comment as quoted lines.
    const call = sandbox.stack.model.calls.find((c) => c.messages.some((m) => m.content.includes("Please explain the ALPHA line")))!;
    const said = call.messages.filter((m) => m.role === "user").at(-1)!.content;
    expect(said).toContain(`mona commented on pull request acme/widgets#${pr.number} on src/a.txt line 2 on GitHub`);
    expect(said).toContain(`> @${SLUG} Please explain the ALPHA line`);

    await expect.poll(() => github.comments.length, { timeout: 10_000 }).toBe(commentsBefore + 1);
    expect(github.comments.at(-1)).toEqual({ repo: "acme/widgets", number: pr.number, body: expect.stringMatching(/^@mona It makes alpha louder, as the issue asked\./), permissions: { pull_requests: "write" } });

    // The App's own reply comes back as a webhook: it starts nothing (no loop).
    const own = await hook("issue_comment", payloads.issueComment("acme/widgets", pr.number, 502, `${SLUG}[bot]`, `@mona ${SLUG} answered; ping @${SLUG} again`), { id: "d-own-1" });
    expect(own).toEqual({ status: 202, body: { ignored: "a comment by the App itself" } });
    // A conversation comment mentioning the App works the same way as a review comment.
    sandbox.stack.model.answer("what about tests", "Tests pass.");
    const plain = await hook("issue_comment", payloads.issueComment("acme/widgets", pr.number, 503, "mona", `hey @${SLUG}, what about tests?`), { id: "d-comment-2" });
    expect(plain).toEqual({ status: 202, body: { handled: "comment" } });
    expect((await posted(20_000, 2)).map((i) => i.answer.reply)).toEqual([expect.stringContaining("what about tests?"), expect.stringContaining("Tests pass.")]);
    await expect.poll(() => github.comments.length, { timeout: 10_000 }).toBe(commentsBefore + 2);
    expect(github.comments.length).toBe(commentsBefore + 2);
  });
});

describe("bad webhook deliveries do nothing", () => {
  it("a bad or missing signature is a 401; a malformed body a 400; an oversized one a 413; nothing is posted", async () => {
    const payload = payloads.closed("acme/widgets", pr.number, true, "mallory");
    const forged = await hook("pull_request", payload, { signature: `sha256=${"0".repeat(64)}` });
    expect(forged).toEqual({ status: 401, body: expect.objectContaining({ code: "unauthorized", error: "the webhook's X-Hub-Signature-256 is missing or does not match GITHUB_WEBHOOK_SECRET" }) });
    // Signed with another secret.
    const otherSecret = await deliverWebhook(`${sandbox.stack.workerUrl}/github/webhook`, "not-the-secret", "pull_request", payload);
    expect(otherSecret.status).toBe(401);
    expect((await hook("pull_request", payload, { signature: null })).status).toBe(401);
    expect((await hook("pull_request", payload, { signature: "sha1=abc" })).status).toBe(401);
    // A body that is not JSON, correctly signed: 400 naming it.
    expect(await hook("pull_request", null, { raw: "{not json" })).toEqual({ status: 400, body: expect.objectContaining({ error: "the webhook's body is not JSON" }) });
    expect((await hook("pull_request", null, { raw: "[1,2]" })).status).toBe(400);
    expect((await hook("pull_request", null, { raw: "" })).status).toBe(400);
    const huge = await hook("pull_request", { ...payload, padding: "x".repeat(1024 * 1024) });
    expect(huge.status).toBe(413);
    expect(await posted(1500)).toEqual([]);
    expect((await prAudit()).map((e) => e.decidedBy)).not.toContain("mallory");
  });

  it("a pull request Duet did not open, and events Duet does not act on, are answered 202 and post nothing", async () => {
    const other = await hook("pull_request", payloads.closed("acme/widgets", 999, true, "octocat"));
    expect(other).toEqual({ status: 202, body: { ignored: "acme/widgets#999 is not a pull request Duet opened" } });
    const elsewhere = await hook("pull_request_review_comment", payloads.reviewComment("someone/else", pr.number, 601, "mona", `@${SLUG} hi`));
    expect(elsewhere.body).toEqual({ ignored: `someone/else#${pr.number} is not a pull request Duet opened` });
    const noMention = await hook("issue_comment", payloads.issueComment("acme/widgets", pr.number, 602, "mona", `looks good; @${SLUG}-other please check`));
    expect(noMention).toEqual({ status: 202, body: { ignored: `the comment does not mention @${SLUG}` } });
    const viaApp = await hook("issue_comment", { ...payloads.issueComment("acme/widgets", pr.number, 603, "mona", `@${SLUG} again`), comment: { id: 603, body: `@${SLUG} again`, user: { login: "mona" }, performed_via_github_app: { slug: SLUG } } });
    expect(viaApp.body).toEqual({ ignored: "a comment by the App itself" });
    expect((await hook("pull_request", { ...payloads.closed("acme/widgets", pr.number, true, "x"), action: "opened" })).status).toBe(202);
    expect((await hook("push", { ref: "refs/heads/main", repository: { full_name: "acme/widgets" } })).body).toEqual({ ignored: "push event is not acted on" });
    expect(await hook("ping", { zen: "Keep it logically awesome." })).toEqual({ status: 200, body: { pong: true } });
    // A hostile payload: wrong types everywhere.
    expect((await hook("pull_request", { action: "closed", pull_request: { number: "1; DROP TABLE pull" }, repository: { full_name: ["x"] } })).status).toBe(202);
    expect(await posted(1500)).toEqual([]);
    expect(github.comments.filter((c) => c.body.includes("again"))).toEqual([]);
  });
});
