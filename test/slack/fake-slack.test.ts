import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type FakeSlack, paneThreadStarted, startFakeSlack, userMessage } from "../fakes/slack/index.ts";

/**
 * The fake Slack holds the bot to Slack's own rules; these check the rules
 * themselves, calling it the way @slack/web-api does (form bodies, bearer token).
 */

let slack: FakeSlack;
beforeAll(async () => {
  slack = await startFakeSlack();
});
afterAll(async () => {
  await slack?.close();
});

async function call(method: string, args: Record<string, unknown>, token: string | null = slack.id.botToken) {
  const form = new URLSearchParams(Object.entries(args).map(([k, v]) => [k, typeof v === "string" ? v : JSON.stringify(v)]));
  const res = await fetch(`${slack.apiUrl}${method}`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded", ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: form,
  });
  return { status: res.status, retryAfter: res.headers.get("retry-after"), body: (await res.json()) as Record<string, unknown> };
}

const section = (text: string) => ({ type: "section", text: { type: "mrkdwn", text } });

describe("fake Slack Web API", () => {
  it("checks the token like Slack", async () => {
    expect((await call("auth.test", {}, null)).body).toEqual({ ok: false, error: "not_authed" });
    expect((await call("auth.test", {}, "xoxb-wrong")).body).toEqual({ ok: false, error: "invalid_auth" });
    expect((await call("apps.connections.open", {})).body).toEqual({ ok: false, error: "not_allowed_token_type" });
    expect((await call("auth.test", {})).body).toMatchObject({ ok: true, user_id: slack.id.botUserId, bot_id: slack.id.botId });
  });

  it("enforces Slack's block limits", async () => {
    const tooMany = await call("chat.postMessage", { channel: "C1", text: "x", blocks: Array.from({ length: 51 }, () => section("a")) });
    expect(tooMany.body).toMatchObject({ ok: false, error: "invalid_blocks" });
    const tooLong = await call("chat.postMessage", { channel: "C1", text: "x", blocks: [section("a".repeat(3001))] });
    expect(tooLong.body).toMatchObject({ ok: false, error: "invalid_blocks", errors: [expect.stringContaining("3001")] });
    expect((await call("chat.postMessage", { channel: "C1" })).body).toEqual({ ok: false, error: "no_text" });
    const ok = await call("chat.postMessage", { channel: "C1", text: "x", blocks: [section("a".repeat(3000))] });
    expect(ok.body).toMatchObject({ ok: true, channel: "C1" });
  });

  it("keeps an agent pane conversation's prompts (at most 4), titles and statuses, and reads its thread oldest first", async () => {
    const { threadTs } = paneThreadStarted(slack, { channel: "D9" });
    const where = { channel_id: "D9", thread_ts: threadTs };
    const five = Array.from({ length: 5 }, (_, i) => ({ title: `t${i}`, message: `m${i}` }));
    expect((await call("assistant.threads.setSuggestedPrompts", { ...where, prompts: five })).body).toEqual({ ok: false, error: "invalid_arguments" });
    expect((await call("assistant.threads.setSuggestedPrompts", { ...where, prompts: five.slice(0, 4), title: "Try" })).body).toEqual({ ok: true });
    expect((await call("assistant.threads.setTitle", { ...where, title: "First ask" })).body).toEqual({ ok: true });
    expect((await call("assistant.threads.setStatus", { ...where, status: "is running ls", loading_messages: ["Running ls"] })).body).toEqual({ ok: true });
    expect((await call("assistant.threads.setStatus", { ...where, status: "x", loading_messages: "not a list" })).body).toEqual({ ok: false, error: "invalid_arguments" });
    expect(slack.ws.assistantThreads.get(`D9/${threadTs}`)).toEqual({ prompts: five.slice(0, 4), promptsTitle: "Try", titles: ["First ask"] });
    expect(slack.ws.statusLog.at(-1)).toEqual({ channel: "D9", threadTs, status: "is running ls", loading: ["Running ls"] });
    const ask = slack.ws.add({ channel: "D9", thread_ts: threadTs, user: "U0ALICE", text: "hi", via: "user" });
    const thread = await call("conversations.replies", { channel: "D9", ts: threadTs, limit: 10 });
    expect((thread.body.messages as { ts: string; subtype?: string }[]).map((m) => [m.ts, m.subtype])).toEqual([[threadTs, "assistant_app_thread"], [ask.ts, undefined]]);
    const one = await call("conversations.replies", { channel: "D9", ts: threadTs, limit: 1, inclusive: true });
    expect([(one.body.messages as unknown[]).length, one.body.has_more]).toEqual([1, true]);
  });

  it("answers already_reacted for a second identical reaction and message_not_found for no message", async () => {
    const ts = userMessage(slack, "C2", "hello");
    expect((await call("reactions.add", { channel: "C2", timestamp: ts, name: "eyes" })).body).toEqual({ ok: true });
    expect((await call("reactions.add", { channel: "C2", timestamp: ts, name: "eyes" })).body).toEqual({ ok: false, error: "already_reacted" });
    expect((await call("reactions.add", { channel: "C2", timestamp: "1.000001", name: "eyes" })).body).toEqual({ ok: false, error: "message_not_found" });
    expect(slack.ws.reactionsOn("C2", ts)).toEqual(["eyes"]);
  });

  it("rate-limits the next calls of a method with Retry-After", async () => {
    slack.rateLimit("chat.update", 2, 3);
    const first = await call("chat.update", { channel: "C1", ts: "1.1", text: "x" });
    expect([first.status, first.retryAfter, first.body.error]).toEqual([429, "3", "ratelimited"]);
    expect((await call("chat.update", { channel: "C1", ts: "1.1", text: "x" })).status).toBe(429);
    expect((await call("chat.update", { channel: "C1", ts: "1.1", text: "x" })).body).toEqual({ ok: false, error: "message_not_found" });
  });

  it("takes a file through files.uploadV2's three steps into a thread", async () => {
    const parent = userMessage(slack, "C3", "thread parent");
    const got = await call("files.getUploadURLExternal", { filename: "out.txt", length: 5 });
    expect(got.body).toMatchObject({ ok: true, file_id: expect.stringMatching(/^F/) });
    const form = new FormData();
    form.append("body", new Blob(["hello"]), "out.txt");
    expect((await fetch(String(got.body.upload_url), { method: "POST", body: form })).status).toBe(200);
    const done = await call("files.completeUploadExternal", { files: [{ id: got.body.file_id, title: "Out" }], channel_id: "C3", thread_ts: parent });
    expect(done.body).toMatchObject({ ok: true, files: [{ id: got.body.file_id, title: "Out", size: 5 }] });
    const [msg] = slack.ws.thread("C3", parent);
    expect(msg.files?.[0].content?.toString()).toBe("hello");
  });

  it("accepts at most five posts to a response_url", async () => {
    const url = slack.responseUrl("C4", "U1");
    const post = () => fetch(url, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ text: "hi" }) });
    const statuses = [];
    for (let i = 0; i < 6; i++) statuses.push((await post()).status);
    expect(statuses).toEqual([200, 200, 200, 200, 200, 404]);
    expect(slack.ws.ephemeral.filter((e) => e.channel === "C4")).toHaveLength(5);
  });
});
