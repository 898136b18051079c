import { describe, expect, it } from "vitest";
import { deliverWebhook, payloads } from "../fakes/github-webhooks.ts";
import type { FakeMessage } from "../fakes/discord/index.ts";
import type { InteractionRecord } from "../fakes/discord/world.ts";
import { startedForTests } from "../helpers/lifecycle.ts";
import type { PrHost } from "../helpers/pr-host.ts";
import type { Stack } from "../helpers/stack.ts";
import { interactionAnswer, mentionAnswer, type DiscordHarness } from "./harness.ts";
import { startDiscordPrSetup } from "./pr-setup.ts";

/**
 * The pull request talks back, as people in Discord see it: the real
 * discord.js bot on the fake Discord, the real Worker and executor, the fake
 * GitHub over `git http-backend`. A Discord thread opens a pull request with
 * `/duet pr` and Open; GitHub's signed webhook then puts the merge or the
 * close in that thread, and a review comment that mentions the App starts a
 * turn whose answer lands both in the thread and as a reply on the pull
 * request (posted by the bot's delivery loop from the outbox).
 */

const SECRET = "whsec-discord-0123456789";

let stack: Stack;
let h: DiscordHarness;
let host: PrHost;

startedForTests(
  () => startDiscordPrSetup({ GITHUB_WEBHOOK_SECRET: SECRET }),
  (s) => ({ stack, h, host } = s),
);

async function command(channel: string, subcommand: string, options: Record<string, string> = {}): Promise<InteractionRecord> {
  const rec = h.fake.interaction(channel, { subcommand, options });
  await interactionAnswer(h, rec);
  return rec;
}

const buttons = (m: FakeMessage) => ((m.components ?? []) as { components: { custom_id: string }[] }[]).flatMap((r) => r.components);

/** In a new Discord thread: link acme/widgets, the model changes it, `/duet pr`, Open. The thread's room and id, and the pull request's number. */
async function openPrInThread(name: string): Promise<{ room: string; thread: string; number: number }> {
  const ch = h.fake.addChannel(h.guildId, `pr-hook-${name}`);
  const thread = h.fake.addThread(ch, name);
  await command(thread, "repo", { name: "acme/widgets" });
  await mentionAnswer(h, h.fake.message(thread, `SAY: changing it <run>cd ~/repo && echo ${name} >> src/a.txt</run>`, { mention: true }));
  const proposed = await command(thread, "pr", { title: name });
  const click = h.fake.click(proposed.original!, buttons(proposed.original!)[0].custom_id);
  await h.waitForLog(`click ${click.id} `);
  const pull = host.github.pulls.find((p) => p.title === name);
  expect(pull, `the pull request ${name} was opened`).toBeDefined();
  return { room: `discord-${h.guildId}-${ch}-${thread}`, thread, number: pull!.number };
}

/** The bot's messages in `thread` that say `text`, once there is one. */
async function noteIn(thread: string, text: string): Promise<FakeMessage> {
  await expect.poll(() => h.fake.messagesIn(thread).some((m) => m.author.id === h.fake.botUser.id && m.content.includes(text)), { timeout: 30_000 }).toBe(true);
  return h.fake.messagesIn(thread).find((m) => m.author.id === h.fake.botUser.id && m.content.includes(text))!;
}

const hook = (event: string, payload: unknown) => deliverWebhook(`${stack.workerUrl}/github/webhook`, SECRET, event, payload);

describe("a Duet pull request talks back in its Discord thread", () => {
  it("merged: the thread shows 🎉, who merged it and the link; the audit has it", async () => {
    const { room, thread, number } = await openPrInThread("merge-me");
    expect(await hook("pull_request", payloads.closed("acme/widgets", number, true, "octocat"))).toEqual({ status: 202, body: { handled: "merged" } });
    const note = await noteIn(thread, "was merged");
    expect(note.content).toBe(`🎉 acme/widgets#${number} was merged by octocat on GitHub. https://github.example/acme/widgets/pull/${number}`);
    const audit = (await stack.client.audit(room)).entries;
    expect(audit.filter((e) => e.kind === "pr-merged")).toEqual([expect.objectContaining({ repo: "acme/widgets", decidedBy: "octocat" })]);
  });

  it("closed without merging: the thread says who closed it", async () => {
    const { thread, number } = await openPrInThread("close-me");
    expect(await hook("pull_request", payloads.closed("acme/widgets", number, false, "hubot"))).toEqual({ status: 202, body: { handled: "closed" } });
    const note = await noteIn(thread, "was closed without merging");
    expect(note.content).toBe(`acme/widgets#${number} was closed without merging by hubot on GitHub. https://github.example/acme/widgets/pull/${number}`);
    // Posted once: the barrier is the note itself, confirmed before the outbox lets it go.
    expect(h.fake.messagesIn(thread).filter((m) => m.content.includes("was closed without merging"))).toHaveLength(1);
  });

  it("a review comment that mentions the App: the comment and Duet's answer in the thread, once, and the answer as a reply on the pull request", async () => {
    const { thread, number } = await openPrInThread("sprockets");
    stack.model.answer("why sprockets", "Because widgets need sprockets.");
    const comment = payloads.reviewComment("acme/widgets", number, 77, "mona", "@duet-test why sprockets?");
    expect((await hook("pull_request_review_comment", comment)).status).toBe(202);
    const note = await noteIn(thread, "mona on GitHub");
    expect(note.content).toContain("why sprockets?");
    await noteIn(thread, "Because widgets need sprockets.");
    await expect.poll(() => host.github.comments.find((c) => c.number === number && c.body.startsWith("@mona Because widgets need sprockets.")), { timeout: 30_000 }).toBeDefined();
    // Posted once each (the bot confirms what it posts before the outbox lets it go).
    const said = (text: string) => h.fake.messagesIn(thread).filter((m) => m.author.id === h.fake.botUser.id && m.content.includes(text));
    expect(said("Because widgets need sprockets.")).toHaveLength(1);
    expect(said("mona on GitHub")).toHaveLength(1);
  });
});
