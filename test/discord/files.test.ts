import { describe, expect, it } from "vitest";
import { snowflake } from "../fakes/discord/index.ts";
import { startedForTests } from "../helpers/lifecycle.ts";
import { startSandboxStack } from "../helpers/sandbox-stack.ts";
import type { Stack } from "../helpers/stack.ts";
import { type DiscordHarness, interactionAnswer, mentionAnswer, startDiscordHarness } from "./harness.ts";

/**
 * Files between Discord and the room's workspace, end to end: the real
 * discord.js bot against the fake Discord (whose CDN serves attachments and
 * whose REST API records uploads), the real Worker and the bubblewrap executor.
 */

const FILE_MAX = 64 * 1024;

let stack: Stack;
let h: DiscordHarness;
/** A bot (on a fake Discord of its own) set to take bigger files than the Worker does, so the Worker's own limit is what refuses them. */
let loose: DiscordHarness;

startedForTests(
  async () => {
    const sandbox = await startSandboxStack({
      executor: { fileMaxBytes: FILE_MAX },
      wire: ({ url, token }) => ({ SANDBOX_URL: url, SANDBOX_TOKEN: token, DUET_FILE_MAX_BYTES: String(FILE_MAX) }),
    });
    const harness = await startDiscordHarness(sandbox.stack, { env: (fake) => ({ DISCORD_CDN_ORIGINS: fake.url, DUET_FILE_MAX_BYTES: String(FILE_MAX) }) });
    const looser = await startDiscordHarness(sandbox.stack, { env: (fake) => ({ DISCORD_CDN_ORIGINS: fake.url, DUET_FILE_MAX_BYTES: String(FILE_MAX * 4) }) });
    return {
      stack: sandbox.stack,
      h: harness,
      loose: looser,
      async stop() {
        await looser.stop();
        await harness.stop();
        await sandbox.stop();
      },
    };
  },
  (s) => ({ stack, h, loose } = s),
);

let seq = 0;
const newChannel = () => h.fake.addChannel(h.guildId, `files-${++seq}`);
const roomOf = (channel: string, guildId = h.guildId) => `discord-${guildId}-${channel}`;
const uploads = async (channel: string, guildId = h.guildId) => (await stack.client.listFiles(roomOf(channel, guildId), "uploads").catch(() => ({ entries: [] }))).entries.map((e) => e.path);
const said = (messages: { content: string }[]) => messages.map((m) => m.content).join("\n");
/** REST calls that carried files into `channel` (channel messages) or for an interaction (its webhook). */
const fileCalls = (where: string) => h.fake.calls.filter((c) => c.files.length > 0 && c.path.includes(where));

describe("files shared with Duet", () => {
  it("a CSV attached to a mention is in uploads/ before the turn, and its command's output is in the reply", async () => {
    const channel = newChannel();
    const file = h.fake.cdn.attach("data.csv", "name,qty\napples,3\npears,5\n");
    const msg = h.fake.message(channel, "SAY: Reading. <run>cat uploads/data.csv</run>", { mention: true, attachments: [file] });
    expect(said(await mentionAnswer(h, msg))).toContain("apples,3\npears,5");
    expect(await uploads(channel)).toEqual(["uploads/data.csv"]);
  });

  it("a file given to /duet ask's attachment option reaches the sandbox before the answer", async () => {
    const channel = newChannel();
    const file = h.fake.cdn.attach("log.txt", "line-one\nline-two\n", { contentType: "text/plain" });
    const rec = h.fake.interaction(channel, { subcommand: "ask", options: { prompt: "SAY: Counting. <run>wc -l uploads/log.txt</run>" } }, undefined, { attachment: { option: "file", file } });
    expect((await interactionAnswer(h, rec)).text).toContain("2 uploads/log.txt");
  });

  it("hostile names become safe names in uploads/", async () => {
    const channel = newChannel();
    const files = [h.fake.cdn.attach("../../etc/passwd", "one"), h.fake.cdn.attach("bad\u0007name.csv", "two")];
    const msg = h.fake.message(channel, "SAY: Got them.", { mention: true, attachments: files });
    await mentionAnswer(h, msg);
    expect((await uploads(channel)).sort()).toEqual(["uploads/.._.._etc_passwd", "uploads/badname.csv"]);
  });

  it("an attachment that redirects off Discord's CDN is refused, and the other host never gets a request", async () => {
    const channel = newChannel();
    const file = h.fake.cdn.attach("moved.csv", "never", { mode: "redirect-elsewhere" });
    const msg = h.fake.message(channel, "SAY: Looking.", { mention: true, attachments: [file] });
    expect(said(await mentionAnswer(h, msg))).toContain("leads away from Discord's own file servers");
    expect(h.fake.cdn.elsewhere).toEqual([]);
    expect(await uploads(channel)).toEqual([]);
  });

  it("Ask Duet on a message with a file puts it in the thread room's uploads/ before the turn, and the quoted message names it; a file off Discord's CDN is named but never fetched", async () => {
    const channel = newChannel();
    const file = h.fake.cdn.attach("trace.log", "frame 1\nframe 2\n");
    const offsite = { id: snowflake(), filename: "elsewhere.log", size: 5, url: "https://files.example.com/elsewhere.log", proxy_url: "https://files.example.com/elsewhere.log", content_type: "text/plain" };
    const target = h.fake.message(channel, `stack trace ${channel}`, { attachments: [file, offsite] });
    const rec = h.fake.messageCommand(target);
    await h.fake.waitForCall((c) => c.path === `/interactions/${rec.id}/${rec.token}/callback`, 20_000, "the Ask Duet modal");
    const sub = h.fake.submitModal(rec, { question: "SAY: Reading. <run>cat uploads/trace.log</run>" });
    await h.waitForLog(`ask ${sub.id} answered`);
    // A thread started on a message has the message's id, and a room of its own.
    expect(await uploads(`${channel}-${target.id}`)).toEqual(["uploads/trace.log"]);
    expect(said(h.fake.messagesIn(target.id))).toContain("frame 2");
    expect(said(h.fake.messagesIn(target.id))).not.toContain("Discord's own file servers");
    const [call] = stack.model.calls.filter((c) => c.messages.at(-1)?.content.includes(`stack trace ${channel}`));
    expect(call.messages.at(-1)!.content).toContain('files shared with it: ["trace.log","elsewhere.log"]');
    expect(h.fake.cdn.fetched).toContain(file.id);
  });

  it("an attachment over the limit gets a message and is never fetched", async () => {
    const channel = newChannel();
    const file = h.fake.cdn.attach("big.bin", Buffer.alloc(FILE_MAX + 1), { contentType: "application/octet-stream" });
    const msg = h.fake.message(channel, "SAY: Looking.", { mention: true, attachments: [file] });
    expect(said(await mentionAnswer(h, msg))).toContain("`big.bin` (64 KiB) is over the 64 KiB a file may be");
    expect(h.fake.cdn.fetched).not.toContain(file.id);
    expect(await uploads(channel)).toEqual([]);
  });

  it("an attachment the Worker refuses (413 past its DUET_FILE_MAX_BYTES) gets its own reply naming that limit; the turn still answers and uploads/ shows nothing of it", async () => {
    const channel = loose.fake.addChannel(loose.guildId, `files-loose-${++seq}`);
    const file = loose.fake.cdn.attach("wide.csv", Buffer.alloc(FILE_MAX * 2, "a"));
    const msg = loose.fake.message(channel, "SAY: Listing. <run>mkdir -p uploads && ls -A uploads/ && echo listed</run>", { mention: true, attachments: [file] });
    // The refusal is posted first, then the turn answers: its command's output is the barrier.
    await loose.fake.waitForCall((c) => JSON.stringify(c.body ?? "").includes("listed"), 30_000, "the answer with the listing");
    const replies = (await mentionAnswer(loose, msg)).map((m) => m.content);
    // The bot fetched it (its own limit allows it): the Worker's limit is what refused it.
    expect(loose.fake.cdn.fetched).toContain(file.id);
    // One reply of its own, naming the Worker's 64 KiB (the bot's own limit is 256 KiB).
    const refusal = replies.filter((t) => t.includes("wide.csv"));
    expect(refusal).toHaveLength(1);
    expect(refusal[0]).toContain("`wide.csv` is over the 64 KiB a file may be, so it was not added to the workspace.");
    // A refusal ends with the ref of the trace that records it, as every failure does.
    expect(refusal[0]).toMatch(/ \(ref [0-9a-f]{8}\)$/);
    const answer = replies.find((t) => t.includes("listed"));
    expect(answer).toContain("Listing.");
    expect(answer).not.toContain("wide");
    expect(await uploads(channel, loose.guildId)).toEqual([]);
  });
});

describe("files from the workspace", () => {
  it("a chart the model attaches is posted after the answer as an attachment shown in an embed", async () => {
    const channel = newChannel();
    const msg = h.fake.message(channel, "SAY: Drawing. <run>printf 'PNG-chart-bytes' > chart.png</run> <attach>chart.png</attach>", { mention: true });
    await mentionAnswer(h, msg);
    const call = await h.fake.waitForCall((c) => c.files.some((f) => f.filename === "chart.png"), 30_000, "the chart's upload");
    expect(call.files.map((f) => [f.filename, f.text])).toEqual([["chart.png", "PNG-chart-bytes"]]);
    expect(call.body.embeds).toEqual([expect.objectContaining({ image: { url: "attachment://chart.png" } })]);
    expect(call.path).toContain(channel);
  });

  it("/duet get posts a workspace file; a missing file, a bad path and one too big for the interaction are explained", async () => {
    const channel = newChannel();
    await stack.client.putFile(roomOf(channel), "out/result.txt", new TextEncoder().encode("the result\n"));
    const rec = h.fake.interaction(channel, { subcommand: "get", options: { path: "out/result.txt" } });
    await h.fake.waitForCall((c) => c.path.includes(rec.token) && c.files.length > 0, 30_000, "the file from /duet get");
    expect(fileCalls(rec.token).flatMap((c) => c.files.map((f) => [f.filename, f.text]))).toEqual([["result.txt", "the result\n"]]);

    const answer = async (path: string, o: { attachmentSizeLimit?: number } = {}) => {
      const r = h.fake.interaction(channel, { subcommand: "get", options: { path } }, undefined, o);
      return (await interactionAnswer(h, r)).text;
    };
    expect(await answer("nope.txt")).toContain("There is no file `nope.txt` in the workspace.");
    expect(await answer("../etc/passwd")).toContain("is not a workspace path: path must not contain '..'");
    expect(await answer("out/result.txt", { attachmentSizeLimit: 8 })).toContain("`out/result.txt` is 11 bytes, over the 8 bytes Discord takes for a file");
  });
});
