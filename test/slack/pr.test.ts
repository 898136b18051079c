import { describe, expect, it } from "vitest";
import { blockTexts, type FakeSlack, type SlackMessage } from "../fakes/slack/index.ts";
import { startedForTests } from "../helpers/lifecycle.ts";
import { startPrHost, type PrHost } from "../helpers/pr-host.ts";
import type { Stack } from "../helpers/stack.ts";
import { startWorkerTap, type WorkerTap } from "../helpers/worker-tap.ts";
import { answerTo, type BotHandle, click, mention, newChannel, readable, slash, slashResponse, startBot, startSlackSetup } from "./harness.ts";

/**
 * `/duet pr` end to end: the real bolt app against the fake Slack, the real
 * Worker and bubblewrap executor, and the fake GitHub whose git host is
 * `git http-backend` on a bare acme/widgets. Only U0ALICE may change the run
 * policy (so link) and approve; anyone may run commands.
 */

let stack: Stack;
let slack: FakeSlack;
let bot: BotHandle;
let host: PrHost;
/** Between the bot and the Worker: what the bot asked of it. */
let tap: WorkerTap;
/** The bot's warnings, so a test can wait until a click was refused before it looked at anything. */
const warnings: string[] = [];

startedForTests(
  async () => {
    const prHost = await startPrHost();
    const setup = await startSlackSetup([], { executor: "real", vars: { ...prHost.vars, MODEL_TIMEOUT_MS: "30000" } }).catch(async (err) => {
      await prHost.stop();
      throw err;
    });
    const logger = {
      debug: () => {},
      info: () => {},
      warn: (...m: unknown[]) => void warnings.push(m.map(String).join(" ")),
      error: (...m: unknown[]) => console.error(...m),
      setLevel: () => {},
      getLevel: () => "info" as never,
      setName: () => {},
    };
    const workerTap = await startWorkerTap(setup.stack.workerUrl);
    const started = await startBot(setup.slack, { workerUrl: workerTap.url, token: setup.stack.token }, { SLACK_ALLOW_POLICY: "U0ALICE", SLACK_ALLOW_APPROVE: "U0ALICE" }, { logger });
    return {
      stack: setup.stack,
      slack: setup.slack,
      bot: started,
      host: prHost,
      tap: workerTap,
      stop: async () => (await started.stop(), await workerTap.close(), await setup.stop(), await prHost.stop()),
    };
  },
  (s) => ({ stack, slack, bot, host, tap } = s),
);

/** What a message's blocks show (its `text` is only the notification). */
const seen = (msg: { blocks?: unknown[] }) => ((msg.blocks ?? []) as Parameters<typeof blockTexts>[0][]).flatMap(blockTexts).join("\n");

const roomOf = (channel: string) => `slack-${slack.id.teamId}-${channel}`;

/** `/duet <text>` from `user`: what the response_url message shows and whether the channel sees it. */
async function duet(channel: string, text: string, user = "U0ALICE") {
  const { fields } = await slash(slack, bot, channel, text, user);
  const body = await slashResponse(slack, fields);
  return { text: seen(body as { blocks?: Record<string, unknown>[] }), visibility: body.response_type as string };
}

/** A change the model makes: the fake model's answer runs `cmd` in the room's sandbox (the first turn checks the repository out first). */
async function modelChanges(channel: string, cmd: string): Promise<void> {
  const m = await mention(slack, bot, { channel, text: `SAY: changing it <run>${cmd}</run>` });
  const replies = await answerTo(slack, m);
  expect(replies.map(readable).join("\n")).toMatch(/Checked out acme\/widgets|changing it/);
}

/** The proposal message the bot posted in `channel` (the newest with Open and Skip). */
function proposalIn(channel: string): SlackMessage {
  const found = slack.ws.channel(channel).filter((m) => m.bot_id === slack.id.botId && JSON.stringify(m.blocks ?? []).includes("duet_pr_open"));
  if (!found.length) throw new Error(`no proposal in ${channel}`);
  return found[found.length - 1];
}

const valueOf = (msg: SlackMessage) => {
  const actions = (msg.blocks ?? []).find((b) => b.type === "actions") as { elements: { value: string }[] } | undefined;
  return actions?.elements[0].value ?? "";
};

/** Clicks `action` (open or skip) on the proposal message `msg` as `user`. */
const press = (channel: string, msg: SlackMessage, action: "open" | "skip", user = "U0ALICE", value = valueOf(msg)) =>
  click(slack, bot, { channel, messageTs: msg.ts, actionId: `duet_pr_${action}`, value, user });

/** Waits for the proposal `msg` to show, in place of its buttons, that its pull request was opened or updated (its link). */
const linkShown = (channel: string, msg: SlackMessage) =>
  slack.waitFor(() => {
    const now = slack.ws.find(channel, msg.ts);
    return now && /pull request #\d+/.test(seen(now)) ? now : undefined;
  }, `the pull request's link in ${channel}`);

/** The bot's messages in `channel` and the proposal's thread that show `url`. */
const showing = (channel: string, msg: SlackMessage, url: string) =>
  [...slack.ws.channel(channel), ...slack.ws.thread(channel, msg.thread_ts ?? msg.ts)].filter((m, i, all) => m.bot_id === slack.id.botId && all.findIndex((o) => o.ts === m.ts) === i && seen(m).includes(url));

const ephemeralFor = (channel: string, user: string, before: number) =>
  slack.waitFor(() => slack.ws.ephemeral.slice(before).find((e) => e.channel === channel && e.user === user), `an ephemeral message for ${user}`);

describe("Slack: /duet pr", () => {
  // First in the file: no push token is minted (and cached) yet, so Open asks GitHub for one, and is refused.
  it("GitHub refusing Open (its rate limit) is told to the clicker as GitHub's sentence ending with the trace's ref; nothing is pushed", async () => {
    const channel = newChannel();
    await duet(channel, "repo acme/widgets");
    await modelChanges(channel, "cd ~/repo && echo delta > src/d.txt");
    await duet(channel, "pr Add delta");
    const msg = proposalIn(channel);
    host.github.limitNext(30);
    const before = slack.ws.ephemeral.length;
    await press(channel, msg, "open");
    const said = seen(await ephemeralFor(channel, "U0ALICE", before));
    expect(said).toMatch(/^:warning: GitHub is limiting requests \(while [^)]+\); try again in 30 s \(ref [0-9a-f]{8}\)$/);
    expect(host.github.pushes()).toBe(0);
    expect(JSON.stringify(slack.ws.find(channel, msg.ts)?.blocks ?? [])).toContain("duet_pr_open");
  });

  it("proposes the model's change in the channel with branch, diffstat and diff; Open pushes exactly it and shows the link in place of the buttons; a second /duet pr updates the same pull request", async () => {
    const channel = newChannel();
    expect((await duet(channel, "repo acme/widgets")).visibility).toBe("in_channel");
    await modelChanges(channel, "cd ~/repo && printf 'alpha\\nALPHA\\n' > src/a.txt");

    const proposed = await duet(channel, "pr Shout ALPHA", "U0BOB");
    expect(proposed.visibility).toBe("in_channel");
    expect(proposed.text).toMatch(/^:twisted_rightwards_arrows: <@U0BOB> proposes a pull request to `acme\/widgets` \(`main`\): `Shout ALPHA`\nBranch `duet\/shout-alpha-[0-9a-f]{6}` · 1 file changed, 1 insertion\(\+\)/);
    expect(proposed.text).toContain("+ALPHA");
    const msg = proposalIn(channel);
    const branch = /duet\/shout-alpha-[0-9a-f]{6}/.exec(proposed.text)![0];

    await press(channel, msg, "open", "U0BOB");
    const link = await linkShown(channel, msg);
    const pull = host.github.pulls.find((p) => p.head === branch)!;
    expect(seen(link)).toContain(`:white_check_mark: <@U0BOB> opened pull request #${pull.number} from \`${branch}\`: ${pull.html_url}`);
    // The pull request links the thread and credits the asker by name; Slack gives no address, so no trailer.
    expect(pull).toMatchObject({ repo: "acme/widgets", base: "main", title: "Shout ALPHA" });
    expect(pull.body).toContain(`https://${slack.id.teamName}.slack.com/archives/${channel}/p${msg.ts.replace(".", "")}`);
    expect(pull.body).toContain("asked for by member-U0BOB (U0BOB)");
    expect(pull.body).not.toContain("Co-authored-by");
    // The bare repository holds the duet/ branch with exactly the model's change; main is untouched.
    expect(host.hostGit("rev-parse", "main")).toBe(host.mainTip);
    expect(host.hostGit("diff", "--name-only", "main", branch)).toBe("src/a.txt");
    expect(host.hostGit("show", `${branch}:src/a.txt`)).toBe("alpha\nALPHA");
    // The proposal's buttons gave way to the link, which no other message shows.
    expect(JSON.stringify(link.blocks)).not.toContain("duet_pr_open");
    expect(showing(channel, msg, pull.html_url).map((m) => m.ts)).toEqual([msg.ts]);

    // More work, proposed again: the same branch, said to update the pull request; opening it pushes on top.
    await modelChanges(channel, "cd ~/repo && echo beta > src/b.txt");
    const again = await duet(channel, "pr");
    expect(again.text).toContain(`(updates #${pull.number})`);
    expect(again.text).toContain(`Branch \`${branch}\``);
    const second = proposalIn(channel);
    await press(channel, second, "open");
    expect(seen(await linkShown(channel, second))).toContain(`<@U0ALICE> updated pull request #${pull.number}`);
    expect(host.github.pulls.filter((p) => p.head === branch)).toHaveLength(1);
    expect(host.hostGit("diff", "--name-only", "main", branch)).toBe("src/a.txt\nsrc/b.txt");
  });

  it("approve room: a click from someone not allowed pushes nothing and is told privately; an allowed click opens it; the audit has each step", async () => {
    const channel = newChannel();
    await duet(channel, "repo acme/widgets");
    await modelChanges(channel, "cd ~/repo && echo gamma > src/c.txt");
    await duet(channel, "policy approve");
    await duet(channel, "pr Add gamma", "U0BOB");
    const msg = proposalIn(channel);
    const pullsBefore = host.github.pulls.length;
    const pushesBefore = host.github.pushes();

    const before = slack.ws.ephemeral.length;
    await press(channel, msg, "open", "U0MALLORY");
    // The barrier: the refusal reached Mallory, so the click was handled before anything is looked at.
    const refusal = await ephemeralFor(channel, "U0MALLORY", before);
    expect(seen(refusal)).toBe(":no_entry: Only <@U0ALICE> may open or skip pull requests here; nothing was pushed.");
    expect(host.github.pulls.length).toBe(pullsBefore);
    expect(host.github.pushes()).toBe(pushesBefore);
    expect(JSON.stringify(slack.ws.find(channel, msg.ts)!.blocks)).toContain("duet_pr_open");

    await press(channel, msg, "open", "U0ALICE");
    await linkShown(channel, msg);
    expect(host.github.pulls.length).toBe(pullsBefore + 1);
    const entries = (await stack.client.audit(roomOf(channel))).entries;
    expect(entries.filter((e) => e.kind.startsWith("pr-")).map((e) => [e.kind, e.requestedBy])).toEqual([
      ["pr-proposed", "U0BOB"],
      ["pr-opened", "U0ALICE"],
    ]);
  });

  it("Skip drops the proposal and its buttons; a forged value or another room's button opens nothing; a double click on Open makes one pull request", async () => {
    const channel = newChannel();
    await duet(channel, "repo acme/widgets");
    await modelChanges(channel, "cd ~/repo && echo delta > src/d.txt");
    await duet(channel, "pr Add delta");
    const skipped = proposalIn(channel);
    // Kept before the click: the message loses its buttons once skipped.
    const kept = valueOf(skipped);
    await press(channel, skipped, "skip", "U0BOB");
    await slack.waitFor(() => seen(slack.ws.find(channel, skipped.ts)!).includes("Skipped by <@U0BOB>") || undefined, "the skip to show");
    expect(JSON.stringify(slack.ws.find(channel, skipped.ts)!.blocks)).not.toContain("duet_pr_open");
    // The skipped proposal cannot be opened any more (a click kept from before the edit).
    let before = slack.ws.ephemeral.length;
    await press(channel, skipped, "open", "U0BOB", kept);
    expect(seen(await ephemeralFor(channel, "U0BOB", before))).toBe("This change was skipped, so it was not opened: propose it again.");

    // A forged id in this room: the Worker knows no such proposal; the clicker alone hears it, nothing is pushed.
    await duet(channel, "pr Add delta");
    const msg = proposalIn(channel);
    const value = valueOf(msg);
    const pushes = host.github.pushes();
    before = slack.ws.ephemeral.length;
    await press(channel, msg, "open", "U0BOB", JSON.stringify({ room: roomOf(channel), id: "0badc0de" }));
    expect(seen(await ephemeralFor(channel, "U0BOB", before))).toContain("That pull request proposal is no longer open to a click: nothing was pushed.");
    // Another room's button, and a value this bot never made: ignored, with a line for the operator.
    const warned = warnings.length;
    await press(channel, msg, "open", "U0BOB", JSON.stringify({ room: roomOf(newChannel()), id: JSON.parse(valueOf(msg)).id }));
    await press(channel, msg, "open", "U0BOB", "{not json");
    await slack.waitFor(() => (warnings.slice(warned).filter((w) => w.includes("Ignored an Open/Skip click")).length >= 2 ? true : undefined), "both forged clicks ignored");
    expect(host.github.pushes()).toBe(pushes);

    // Two clicks at once on Open: one push, one pull request, its link shown once; the other clicker is told it is open.
    before = slack.ws.ephemeral.length;
    await Promise.all([press(channel, msg, "open", "U0ALICE", value), press(channel, msg, "open", "U0BOB", value)]);
    const link = await linkShown(channel, msg);
    const told = await slack.waitFor(() => slack.ws.ephemeral.slice(before).find((e) => e.channel === channel && /already opened/.test(e.text)), "the second clicker told");
    expect(seen(told)).toMatch(/^This change is already opened: http\S+\/pull\/\d+$/);
    const branch = /`(duet\/add-delta-[0-9a-f]{6})`/.exec(seen(link))![1];
    expect(host.github.pulls.filter((p) => p.head === branch)).toHaveLength(1);
    expect(host.github.pushes()).toBe(pushes + 1);
    const pull = host.github.pulls.find((p) => p.head === branch)!;
    expect(showing(channel, msg, pull.html_url).map((m) => m.ts)).toEqual([msg.ts]);
    // Named for the click that pushed, whichever of the two edited last.
    const opener = (await stack.client.audit(roomOf(channel))).entries.filter((e) => e.kind === "pr-opened").at(-1)!.requestedBy;
    expect(seen(slack.ws.find(channel, msg.ts)!)).toContain(`:white_check_mark: <@${opener}> opened pull request #${pull.number}`);
  });

  it("no repository, nothing changed, an oversized or empty title, and a hostile one: each one line, and nothing pushed", async () => {
    const channel = newChannel();
    expect(await duet(channel, "pr")).toEqual({
      text: ":package: No repository is linked here, so there is no change to propose; `/duet repo owner/name` links one.",
      visibility: "ephemeral",
    });
    await duet(channel, "repo acme/widgets");
    await modelChanges(channel, "true");
    expect(await duet(channel, "pr Nothing")).toEqual({ text: `Nothing changed in repo/ since main at ${host.mainTip.slice(0, 7)}: there is no pull request to open.`, visibility: "ephemeral" });
    expect(await duet(channel, `pr ${"t".repeat(201)}`)).toEqual({ text: ":warning: That title is 201 characters; a pull request's title is at most 200.", visibility: "ephemeral" });
    expect((await stack.client.audit(roomOf(channel))).entries.some((e) => e.kind === "pr-proposed")).toBe(false);

    await modelChanges(channel, "cd ~/repo && echo eps > src/e.txt");
    // Empty: named after what changed.
    expect((await duet(channel, "pr   ")).text).toContain("`Update src/e.txt`");
    // Hostile: a broadcast, a mention, markup and a fence are shown as text; the branch stays tame.
    const hostile = await duet(channel, "pr <!channel> <@U0BOB> *bold* ```x``` $(reboot)");
    expect(hostile.visibility).toBe("in_channel");
    expect(hostile.text).not.toMatch(/<!channel>|<@U0BOB>/);
    expect(hostile.text).toMatch(/Branch `duet\/channel-u0bob-bold-x-reboot-[0-9a-f]{6}`/);
  });

  it("the model's <pr> at the end of an answer that changed files proposes the change in the thread, after the answer", async () => {
    const channel = newChannel();
    await duet(channel, "repo acme/widgets");
    const m = await mention(slack, bot, { channel, text: "SAY: Added kappa. <run>cd ~/repo && echo kappa > src/k.txt</run>\n<pr>Add kappa</pr>" });
    await answerTo(slack, m);
    const proposal = await slack.waitFor(
      () => slack.ws.thread(channel, m.threadTs).find((r) => r.bot_id === slack.id.botId && JSON.stringify(r.blocks ?? []).includes("duet_pr_open")),
      "the proposal in the thread",
    );
    const thread = slack.ws.thread(channel, m.threadTs).filter((r) => r.bot_id === slack.id.botId);
    // The answer shows no tag and comes first; the proposal follows it.
    expect(thread.map(seen).join("\n")).not.toMatch(/<\/?pr>/i);
    expect(thread.indexOf(proposal)).toBe(thread.length - 1);
    expect(seen(proposal)).toMatch(/proposes a pull request to `acme\/widgets` \(`main`\): `Add kappa`\nBranch `duet\/add-kappa-[0-9a-f]{6}` · 1 file changed, 1 insertion\(\+\)/);
    await press(channel, proposal, "open");
    const link = await linkShown(channel, proposal);
    const branch = /`(duet\/add-kappa-[0-9a-f]{6})`/.exec(seen(link))![1];
    expect(host.hostGit("diff", "--name-only", "main", branch)).toBe("src/k.txt");
  });
});

describe("Slack: /duet repo sync", () => {
  it("checks the linked branch out at repo/ now and tells the channel the commit, then fetches the branch's next commit into it; with nothing linked the asker alone is told; each sync is one Worker call", async () => {
    const channel = newChannel();
    /** What `/duet repo sync` asked of the Worker about this room. */
    const syncCalls = async () => {
      const from = tap.calls.length;
      const said = await duet(channel, "repo sync", "U0BOB");
      return { said, calls: tap.calls.slice(from).filter((c) => c.path.startsWith(`/api/rooms/${roomOf(channel)}/`)).map((c) => `${c.method} ${c.path.split("/").slice(4).join("/")}`) };
    };
    // The Worker's own refusal, shown as it said it, with the ref of its trace.
    expect(await syncCalls()).toEqual({
      said: { text: expect.stringMatching(/^:warning: No repository is linked here, so there is nothing to sync: link one with the repo command first, e\.g\. `acme\/widgets` or `acme\/widgets@main`\. \(ref [0-9a-f]{8}\)$/), visibility: "ephemeral" },
      calls: ["POST repo/sync"],
    });

    const first = await host.repos.commit("acme/widgets", [{ "src/s.txt": "one\n" }], "slack-synced", "main");
    await duet(channel, "repo acme/widgets@slack-synced");
    const head = async () => (await stack.client.exec(roomOf(channel), { cmd: "git -C ~/repo rev-parse HEAD" })).result.stdout.trim();
    // Anyone who may run commands may sync: U0BOB may not link here.
    expect(await syncCalls()).toEqual({
      said: { text: `:package: <@U0BOB> synced \`acme/widgets\`, branch \`slack-synced\`: repo/ is at \`${first.slice(0, 12)}\`.`, visibility: "in_channel" },
      calls: ["POST repo/sync"],
    });
    expect(await head()).toBe(first);

    const next = await host.repos.commit("acme/widgets", [{ "src/s.txt": "two\n" }], "slack-synced");
    expect((await duet(channel, "repo sync", "U0BOB")).text).toContain(`repo/ is at \`${next.slice(0, 12)}\``);
    expect(await head()).toBe(next);
  });
});
