import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { type FakeSlack, startFakeSlack, userMessage } from "../fakes/slack/index.ts";

/**
 * The fake Slack's streamed messages, called with the arguments @slack/web-api's
 * ChatStreamer sends (chunks JSON-encoded in a form body; recipients on start only),
 * so a bot that breaks Slack's streaming rules fails here as it would in Slack.
 */

let slack: FakeSlack;
let clock = 0;
beforeAll(async () => {
  slack = await startFakeSlack();
  slack.streams.now = () => clock;
});
beforeEach(() => {
  clock = 1_000_000;
  slack.streams.lifetimeMs = 5 * 60_000;
  slack.streams.refused = null;
});
afterAll(async () => {
  await slack?.close();
});

async function call(method: string, args: Record<string, unknown>) {
  const form = new URLSearchParams(Object.entries(args).map(([k, v]) => [k, typeof v === "string" ? v : JSON.stringify(v)]));
  const res = await fetch(`${slack.apiUrl}${method}`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded", authorization: `Bearer ${slack.id.botToken}` },
    body: form,
  });
  return (await res.json()) as Record<string, unknown>;
}

const text = (t: string) => ({ type: "markdown_text", text: t });
const task = (id: string, status: string, title = `$ cmd ${id}`) => ({ type: "task_update", id, title, status });

async function start(channel: string, extra: Record<string, unknown> = {}) {
  const parent = userMessage(slack, channel, "question");
  const args = { channel, thread_ts: parent, recipient_user_id: "U0ALICE", recipient_team_id: slack.id.teamId, ...extra };
  return { parent, res: await call("chat.startStream", args) };
}

describe("fake Slack streaming", () => {
  it("grows a reply through start, append and stop, with each task's latest state", async () => {
    const { parent, res } = await start("C10", { chunks: [text("Listing ")] });
    expect(res).toMatchObject({ ok: true, channel: "C10", ts: expect.any(String) });
    const ts = String(res.ts);
    expect(await call("chat.appendStream", { channel: "C10", ts, chunks: [text("files."), task("0", "in_progress")] })).toMatchObject({ ok: true });
    expect(await call("chat.appendStream", { channel: "C10", ts, chunks: [task("0", "complete")] })).toMatchObject({ ok: true });
    const stop = await call("chat.stopStream", { channel: "C10", ts, chunks: [text(" Done.")], blocks: [{ type: "actions", elements: [] }] });
    expect(stop).toMatchObject({ ok: true });
    const [msg] = slack.ws.thread("C10", parent);
    expect(msg.text).toBe("Listing files. Done.");
    expect(msg.stream?.tasks).toEqual([{ id: "0", title: "$ cmd 0", status: "complete" }]);
    expect(msg.stream?.open).toBe(false);
    expect(msg.blocks).toEqual([{ type: "actions", elements: [] }]);
    expect(await call("chat.appendStream", { channel: "C10", ts, chunks: [text("more")] })).toEqual({ ok: false, error: "message_not_in_streaming_state" });
  });

  it("needs recipient_user_id and recipient_team_id in a channel, not in a DM", async () => {
    const parent = userMessage(slack, "C11", "q");
    expect(await call("chat.startStream", { channel: "C11", thread_ts: parent })).toEqual({ ok: false, error: "missing_recipient_user_id" });
    expect(await call("chat.startStream", { channel: "C11", thread_ts: parent, recipient_user_id: "U0ALICE" })).toEqual({ ok: false, error: "missing_recipient_team_id" });
    const dm = userMessage(slack, "D11", "q");
    expect(await call("chat.startStream", { channel: "D11", thread_ts: dm, chunks: [text("hi")] })).toMatchObject({ ok: true });
  });

  it("refuses bad chunks, a stream switching shape, and chat.update while it streams", async () => {
    const bad = await start("C12", { chunks: [{ type: "task_update", id: "0", title: "x", status: "running" }] });
    expect(bad.res).toEqual({ ok: false, error: "invalid_chunks" });
    const { res } = await start("C12", { markdown_text: "plain" });
    const ts = String(res.ts);
    expect(await call("chat.appendStream", { channel: "C12", ts, chunks: [text("x")] })).toEqual({ ok: false, error: "streaming_mode_mismatch" });
    expect(await call("chat.update", { channel: "C12", ts, text: "edited" })).toEqual({ ok: false, error: "streaming_state_conflict" });
    expect(await call("chat.stopStream", { channel: "C12", ts })).toMatchObject({ ok: true });
    expect(await call("chat.update", { channel: "C12", ts, text: "edited" })).toMatchObject({ ok: true });
  });

  it("ends a stream after its lifetime, keeping what was streamed", async () => {
    slack.streams.lifetimeMs = 2_000;
    const { parent, res } = await start("C13", { chunks: [text("part one")] });
    clock += 2_001;
    expect(await call("chat.appendStream", { channel: "C13", ts: String(res.ts), chunks: [text(" part two")] })).toEqual({ ok: false, error: "message_not_in_streaming_state" });
    expect(await call("chat.stopStream", { channel: "C13", ts: String(res.ts) })).toEqual({ ok: false, error: "message_not_in_streaming_state" });
    expect(slack.ws.thread("C13", parent)[0].text).toBe("part one");
    expect(await call("chat.update", { channel: "C13", ts: String(res.ts), text: "part one part two" })).toMatchObject({ ok: true });
  });

  it("refuses every streaming method in a workspace without streaming", async () => {
    slack.streams.refused = "feature_not_enabled";
    expect((await start("C14", { chunks: [text("x")] })).res).toEqual({ ok: false, error: "feature_not_enabled" });
    expect(await call("chat.appendStream", { channel: "C14", ts: "1.1", chunks: [text("x")] })).toEqual({ ok: false, error: "feature_not_enabled" });
  });

  it("records when each chat.update arrived and can answer 429 with Retry-After", async () => {
    const parent = userMessage(slack, "C15", "q");
    const posted = await call("chat.postMessage", { channel: "C15", thread_ts: parent, text: "v1" });
    slack.rateLimit("chat.update", 1, 1);
    await call("chat.update", { channel: "C15", ts: String(posted.ts), text: "v2" });
    await call("chat.update", { channel: "C15", ts: String(posted.ts), text: "v2" });
    const updates = slack.callsOf("chat.update").filter((c) => c.args.channel === "C15");
    expect(updates.map((c) => c.status)).toEqual([429, 200]);
    expect(updates[1].at).toBeGreaterThanOrEqual(updates[0].at);
    expect(slack.ws.find("C15", String(posted.ts))?.text).toBe("v2");
  });
});
