import { describe, expect, it } from "vitest";
import { directMessageEvent, type FakeSlack, messageShortcut, postEvent, postInteraction, startFakeSlack, viewSubmission } from "../fakes/slack/index.ts";
import { startedForTests } from "../helpers/lifecycle.ts";
import { startSandboxStack } from "../helpers/sandbox-stack.ts";
import type { Stack } from "../helpers/stack.ts";
import { answerTo, type BotHandle, botReplies, mention, newChannel, readable, SIGNING_SECRET, slash, startBot } from "./harness.ts";

/**
 * Files between Slack and the room's workspace, end to end: the real bolt app
 * against the fake Slack (which serves shared files and records uploads), the
 * real Worker and the real bubblewrap executor.
 */

/** Small, so over-limit files stay small too; the Worker, the executor and the bot agree on it. */
const FILE_MAX = 64 * 1024;

let stack: Stack;
let slack: FakeSlack;
let bot: BotHandle;
/** A bot set to take bigger files than the Worker does, so the Worker's own limit is what refuses them. */
let looseBot: BotHandle;
/** A bot that posts each answer whole, in one chat.postMessage: the message an answer's files follow. */
let wholeBot: BotHandle;

startedForTests(
  async () => {
    const sandbox = await startSandboxStack({
      executor: { fileMaxBytes: FILE_MAX },
      wire: ({ url, token }) => ({ SANDBOX_URL: url, SANDBOX_TOKEN: token, DUET_FILE_MAX_BYTES: String(FILE_MAX) }),
    });
    const fake = await startFakeSlack();
    const started = await startBot(fake, sandbox.stack, { SLACK_FILE_ORIGINS: fake.url, DUET_FILE_MAX_BYTES: String(FILE_MAX) });
    const loose = await startBot(fake, sandbox.stack, { SLACK_FILE_ORIGINS: fake.url, DUET_FILE_MAX_BYTES: String(FILE_MAX * 4) });
    const whole = await startBot(fake, sandbox.stack, { SLACK_FILE_ORIGINS: fake.url, DUET_FILE_MAX_BYTES: String(FILE_MAX), DUET_STREAMING: "off" });
    return {
      stack: sandbox.stack,
      slack: fake,
      bot: started,
      looseBot: loose,
      wholeBot: whole,
      async stop() {
        await whole.stop();
        await loose.stop();
        await started.stop();
        await fake.close();
        await sandbox.stop();
      },
    };
  },
  (s) => ({ stack, slack, bot, looseBot, wholeBot } = s),
);

const roomOf = (channel: string) => `slack-${slack.id.teamId}-${channel}`;
const uploads = async (channel: string) => (await stack.client.listFiles(roomOf(channel), "uploads").catch(() => ({ entries: [] }))).entries.map((e) => e.path);
const threadText = (replies: { text: string; blocks?: unknown[] }[]) => replies.map((r) => readable(r as never)).join("\n");

describe("files shared with Duet", () => {
  it("a CSV shared with a mention is in uploads/ before the turn, and its command's output is in the thread", async () => {
    const channel = newChannel();
    const file = slack.sharedFiles.share({ name: "data.csv", content: "name,qty\napples,3\npears,5\n" });
    const m = await mention(slack, bot, { channel, text: "SAY: Reading it. <run>cat uploads/data.csv</run>", files: [file] });
    const text = threadText(await answerTo(slack, m));
    expect(text).toContain("apples,3\npears,5");
    expect(await uploads(channel)).toEqual(["uploads/data.csv"]);
    // Fetched once, with the bot's token.
    expect(slack.sharedFiles.downloads.filter((d) => d.id === file.id)).toEqual([{ id: file.id, token: slack.id.botToken }]);
  });

  it("Ask Duet on a message with a file puts the file in uploads/ before the turn, and the quoted message names it", async () => {
    const channel = newChannel();
    const file = slack.sharedFiles.share({ name: "trace.log", content: "TypeError: boom\n    at main (app.js:3)\n", mimetype: "text/plain" });
    const target = slack.ws.add({ channel, user: "U0BOB", text: "this crashed, the log is attached", shared: [file], via: "user" });
    const modals = slack.ws.modals.length;
    await postInteraction(bot.url, messageShortcut(slack, { channel, messageTs: target.ts, callbackId: "ask_duet", user: "U0ALICE" }), { secret: SIGNING_SECRET });
    const view = await slack.waitFor(() => slack.ws.modals[modals]?.view, "the Ask Duet modal");
    const question = "SAY: Reading it. <run>cat uploads/trace.log</run>";
    await postInteraction(bot.url, viewSubmission(slack, { view, values: { question: { question_input: question } }, user: "U0ALICE" }), { secret: SIGNING_SECRET });
    await slack.waitFor(() => botReplies(slack, channel, target.ts).find((r) => readable(r).includes("at main (app.js:3)")), "the file's contents in the message's thread");
    expect(await uploads(channel)).toEqual(["uploads/trace.log"]);
    expect(slack.sharedFiles.downloads.filter((d) => d.id === file.id)).toEqual([{ id: file.id, token: slack.id.botToken }]);
    const prompt = stack.model.calls.find((c) => c.messages.at(-1)?.content.includes("this crashed, the log is attached"))!.messages.at(-1)!.content;
    expect(prompt).toContain('files shared with it: ["trace.log"]\nthis crashed, the log is attached\nquoted message>>>');
  });

  it("a file in a direct message lands in the DM's room", async () => {
    const channel = newChannel("D");
    const file = slack.sharedFiles.share({ name: "notes.txt", content: "dm-file-body\n", mimetype: "text/plain" });
    const payload = directMessageEvent(slack, { channel, text: "SAY: Here. <run>cat uploads/notes.txt</run>", subtype: "file_share", files: [file] });
    await postEvent(bot.url, payload, { secret: SIGNING_SECRET });
    const text = threadText(await answerTo(slack, { channel, ts: String(payload.event.ts), threadTs: String(payload.event.ts) }).then(() => slack.ws.channel(channel).filter((x) => x.bot_id)));
    expect(text).toContain("dm-file-body");
  });

  it("hostile names become safe names in uploads/, and a taken name gets a number", async () => {
    const channel = newChannel();
    const files = [
      slack.sharedFiles.share({ name: "../../etc/passwd", content: "one" }),
      slack.sharedFiles.share({ name: "evil\u0007\nname.csv", content: "two" }),
      slack.sharedFiles.share({ name: "report.csv", content: "three" }),
      slack.sharedFiles.share({ name: "report.csv", content: "four" }),
    ];
    const m = await mention(slack, bot, { channel, text: "SAY: Got them.", files });
    await answerTo(slack, m);
    expect((await uploads(channel)).sort()).toEqual(["uploads/.._.._etc_passwd", "uploads/evilname.csv", "uploads/report-1.csv", "uploads/report.csv"]);
  });

  it("a login page instead of the file is reported as the missing files:read scope, and nothing is written", async () => {
    const channel = newChannel();
    const file = slack.sharedFiles.share({ name: "secret.csv", content: "never", mode: "login-page" });
    const m = await mention(slack, bot, { channel, text: "SAY: Looking.", files: [file] });
    const text = threadText(await answerTo(slack, m));
    expect(text).toContain("`files:read`");
    expect(text).toContain("login page");
    expect(await uploads(channel)).toEqual([]);
  });

  it("a file URL that redirects off Slack's hosts is refused: the other host never gets a request, let alone the token", async () => {
    const channel = newChannel();
    const file = slack.sharedFiles.share({ name: "moved.csv", content: "never", mode: "redirect-elsewhere" });
    const m = await mention(slack, bot, { channel, text: "SAY: Looking.", files: [file] });
    const text = threadText(await answerTo(slack, m));
    expect(text).toContain("leads away from Slack's own file servers");
    expect(slack.sharedFiles.elsewhere).toEqual([]);
    expect(await uploads(channel)).toEqual([]);
  });

  it("a file whose own URL is on another host is never requested, so the token never goes there", async () => {
    const channel = newChannel();
    const file = slack.sharedFiles.share({ name: "forged.csv", content: "never" });
    // The same fake under another host name: what it receives is recorded as "elsewhere".
    const forged = { ...file, url_private_download: String(file.url_private_download).replace("127.0.0.1", "localhost") };
    const m = await mention(slack, bot, { channel, text: "SAY: Looking.", files: [forged] });
    const text = threadText(await answerTo(slack, m));
    expect(text).toContain("leads away from Slack's own file servers");
    expect(slack.sharedFiles.elsewhere).toEqual([]);
    expect(await uploads(channel)).toEqual([]);
  });

  it("a file over the limit gets a message and is never downloaded; one that sends more than its declared size is cut off with nothing written", async () => {
    const channel = newChannel();
    const big = slack.sharedFiles.share({ name: "big.bin", content: Buffer.alloc(FILE_MAX + 1), mimetype: "application/octet-stream" });
    const liar = slack.sharedFiles.share({ name: "liar.bin", content: Buffer.alloc(FILE_MAX * 4), mimetype: "application/octet-stream", mode: "declared-small" });
    const m = await mention(slack, bot, { channel, text: "SAY: Looking.", files: [big, liar] });
    const text = threadText(await answerTo(slack, m));
    expect(text).toContain("`big.bin` (64 KiB) is over the 64 KiB a file may be");
    expect(text).toContain("`liar.bin` sent more than the 1 byte Slack said it has, so it was not added");
    expect(slack.sharedFiles.downloads.some((d) => d.id === big.id)).toBe(false);
    expect(await uploads(channel)).toEqual([]);
  });

  it("a file the Worker refuses (413 past its DUET_FILE_MAX_BYTES) gets its own message in the thread naming that limit; the turn still answers and uploads/ shows nothing of it", async () => {
    const channel = newChannel();
    const wide = slack.sharedFiles.share({ name: "wide.csv", content: Buffer.alloc(FILE_MAX * 2, "a") });
    const m = await mention(slack, looseBot, { channel, text: "SAY: Listing. <run>mkdir -p uploads && ls -A uploads/ && echo listed</run>", files: [wide] });
    const replies = await answerTo(slack, m);
    // The bot fetched it (its own limit allows it): the Worker's limit is what refused it.
    expect(slack.sharedFiles.downloads.some((d) => d.id === wide.id)).toBe(true);
    const refusal = replies.map((r) => readable(r as never)).filter((t) => t.includes("wide.csv"));
    // One message of its own, naming the Worker's 64 KiB (the bot's own limit is 256 KiB).
    expect(refusal).toHaveLength(1);
    expect(refusal[0]).toContain("`wide.csv` is over the 64 KiB a file may be, so it was not added to the workspace.");
    // A refusal ends with the ref of the trace that records it, as every failure does.
    expect(refusal[0]).toMatch(/ \(ref [0-9a-f]{8}\)$/);
    const answer = replies.map((r) => readable(r as never)).find((t) => t.includes("listed"));
    expect(answer).toContain("Listing.");
    expect(answer).not.toContain("wide");
    expect(await uploads(channel)).toEqual([]);
  });
});

describe("files from the workspace", () => {
  it("a chart the model attaches arrives in the thread as an upload with the same bytes", async () => {
    const channel = newChannel();
    const m = await mention(slack, bot, { channel, text: "SAY: Drawing. <run>printf 'PNG-chart-bytes' > chart.png</run> <attach>chart.png</attach>" });
    const replies = await answerTo(slack, m);
    const upload = await slack.waitFor(() => replies.concat(slack.ws.thread(channel, m.ts)).find((r) => r.via === "files.completeUploadExternal"), "the chart's upload");
    expect(upload.thread_ts).toBe(m.ts);
    expect(upload.files?.map((f) => [f.filename, f.content?.toString()])).toEqual([["chart.png", "PNG-chart-bytes"]]);
  });

  it("an answer's file goes to Slack's upload URL while the answer is still being posted, and is shared after the answer", async () => {
    const channel = newChannel();
    const shares = () => slack.callsOf("files.completeUploadExternal").length;
    const sharedBefore = shares();
    const held = slack.hold("chat.postMessage");
    const m = await mention(slack, wholeBot, { channel, text: "SAY: Here it is. <run>printf 'early-bytes' > early.txt</run> <attach>early.txt</attach>" });
    await held.arrived;
    // Barrier: the answer's message is held at Slack, and the file's bytes reach the upload URL all the same.
    await slack.waitFor(() => [...slack.ws.files.values()].find((f) => f.filename === "early.txt" && f.content?.toString() === "early-bytes"), "the file's bytes while the answer is held");
    expect(shares()).toBe(sharedBefore);
    held.release();
    const replies = await answerTo(slack, m);
    const upload = await slack.waitFor(() => slack.ws.thread(channel, m.ts).find((r) => r.via === "files.completeUploadExternal"), "the file's share");
    const answer = replies.find((r) => r.via === "chat.postMessage")!;
    expect(readable(answer)).toContain("Here it is.");
    // Shown after the answer it belongs to, in the same thread.
    expect(Number(upload.ts)).toBeGreaterThan(Number(answer.ts));
    expect(upload.files?.map((f) => [f.filename, f.content?.toString()])).toEqual([["early.txt", "early-bytes"]]);
  });

  it("/duet get posts a workspace file in the channel; bad paths, missing and too-big files get a clear private message", async () => {
    const channel = newChannel();
    await stack.client.putFile(roomOf(channel), "out/result.txt", new TextEncoder().encode("the result\n"));
    await stack.client.exec(roomOf(channel), { cmd: `head -c ${FILE_MAX + 1} /dev/zero > big.bin` });
    await slash(slack, bot, channel, "get out/result.txt");
    const posted = await slack.waitFor(() => slack.ws.channel(channel).find((x) => x.via === "files.completeUploadExternal"), "the file from /duet get");
    expect(posted.files?.map((f) => [f.filename, f.content?.toString()])).toEqual([["result.txt", "the result\n"]]);
    expect(posted.text).toContain("`out/result.txt` (11 bytes)");

    const privately = async (text: string, expected: string) => {
      await slash(slack, bot, channel, text);
      return slack.waitFor(() => slack.ws.ephemeral.find((e) => e.channel === channel && readable(e).includes(expected)), `the answer to /duet ${text}`);
    };
    await privately("get ../../etc/passwd", "is not a workspace path: path must not contain '..'");
    await privately("get nope.txt", "There is no file `nope.txt` in the workspace.");
    await privately("get big.bin", "`big.bin` is over the 64 KiB a file may be to leave the workspace");
    expect(slack.ws.channel(channel).filter((x) => x.via === "files.completeUploadExternal")).toHaveLength(1);
  });
});
