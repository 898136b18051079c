import { describe, expect, it } from "vitest";
import { NOT_A_PROPOSAL } from "@duet/shared";
import { snowflake, user, type FakeMessage } from "../fakes/discord/index.ts";
import type { InteractionRecord } from "../fakes/discord/world.ts";
import { startedForTests } from "../helpers/lifecycle.ts";
import { startPrHost, type PrHost } from "../helpers/pr-host.ts";
import type { Stack } from "../helpers/stack.ts";
import { interactionAnswer, mentionAnswer, type DiscordHarness, startDiscordSetup } from "./harness.ts";
import { withRole } from "./roles.ts";

/**
 * `/duet pr` end to end through the real discord.js bot on the fake Discord,
 * the real Worker and bubblewrap executor, and the fake GitHub with a real
 * git host. Manage Channels may change the policy and approve: alice has it,
 * mallory may only view and send.
 */

let stack: Stack;
let h: DiscordHarness;
let host: PrHost;
const mallory = user(snowflake(), "mallory");
const NO_ROLE = snowflake();
const EPHEMERAL = 64;

startedForTests(
  async () => {
    const prHost = await startPrHost();
    const setup = await startDiscordSetup({
      env: () => ({ DISCORD_ALLOW_POLICY: "manage-channels", DISCORD_ALLOW_APPROVE: "manage-channels" }),
      stack: { executor: "real", vars: { ...prHost.vars, MODEL_TIMEOUT_MS: "30000" } },
    }).catch(async (err) => {
      await prHost.stop();
      throw err;
    });
    return { ...setup, host: prHost, stop: async () => (await setup.stop(), await prHost.stop()) };
  },
  (s) => ({ stack, h, host } = s),
);

const room = (channel: string) => `discord-${h.guildId}-${channel}`;

async function command(channel: string, subcommand: string, options: Record<string, string> = {}, from = h.fake.alice) {
  await withRole(h, NO_ROLE, [], [mallory]);
  const rec = h.fake.interaction(channel, { subcommand, options }, from);
  const { text } = await interactionAnswer(h, rec);
  return { text, ephemeral: rec.ephemeral, rec };
}

/** The model changes a file in repo/ (its first turn checks the repository out). */
async function modelChanges(channel: string, cmd: string): Promise<void> {
  await withRole(h, NO_ROLE, [], [mallory]);
  const msg = h.fake.message(channel, `SAY: changing it <run>${cmd}</run>`, { mention: true });
  await mentionAnswer(h, msg);
}

/** A click on a button of `message`; resolves once the bot has handled it (its log line: the barrier). */
async function press(message: FakeMessage, customId: string, from = h.fake.alice): Promise<InteractionRecord> {
  const rec = h.fake.click(message, customId, from);
  await h.waitForLog(`click ${rec.id} `);
  return rec;
}

const buttons = (m: FakeMessage) => ((m.components ?? []) as { components: { custom_id: string; label: string }[] }[]).flatMap((r) => r.components);
const current = (m: FakeMessage) => h.fake.world.messages.get(m.id)!;
const said = (rec: InteractionRecord, ephemeral: boolean) =>
  rec.followups.filter((m) => Boolean(Number(m.flags ?? 0) & EPHEMERAL) === ephemeral).map((m) => m.content).join("\n");

describe("Discord: /duet pr", () => {
  // First in the file: no push token is minted (and cached) yet, so Open asks GitHub for one, and is refused.
  it("GitHub refusing Open (its rate limit) is told to the clicker as GitHub's sentence ending with the trace's ref; nothing is pushed", async () => {
    const ch = h.fake.addChannel(h.guildId, "pr-limited");
    await command(ch, "repo", { name: "acme/widgets" });
    await modelChanges(ch, "cd ~/repo && echo delta > src/d.txt");
    const msg = (await command(ch, "pr", { title: "Add delta" })).rec.original!;
    host.github.limitNext(30);
    const clicked = await press(msg, buttons(msg)[0].custom_id);
    expect(said(clicked, true)).toMatch(/^⚠️ GitHub is limiting requests \(while [^)]+\); try again in 30 s \(ref [0-9a-f]{8}\)$/);
    expect(host.github.pushes()).toBe(0);
    expect(buttons(current(msg))).toHaveLength(2);
  });

  it("proposes the model's change with its branch, diffstat and diff; under approve only an allowed click opens it, with the thread's link and the credit; the branch holds exactly the change", async () => {
    const ch = h.fake.addChannel(h.guildId, "pr-open");
    expect((await command(ch, "repo", { name: "acme/widgets" })).ephemeral).toBe(false);
    await modelChanges(ch, "cd ~/repo && printf 'alpha\\nALPHA\\n' > src/a.txt");
    await command(ch, "policy", { mode: "approve" });

    const proposed = await command(ch, "pr", { title: "Shout ALPHA" }, mallory);
    expect(proposed.ephemeral).toBe(false);
    expect(proposed.text).toMatch(new RegExp(`^🔀 <@${mallory.id}> proposes a pull request to \`acme/widgets\` \\(\`main\`\\): \`Shout ALPHA\`\nBranch \`duet/shout-alpha-[0-9a-f]{6}\` · 1 file changed, 1 insertion\\(\\+\\)\n\`\`\`diff\n`));
    expect(proposed.text).toContain("+ALPHA");
    expect(proposed.text.length).toBeLessThanOrEqual(2000);
    const msg = proposed.rec.original!;
    expect(buttons(msg).map((b) => b.label)).toEqual(["Open", "Skip"]);
    const branch = /duet\/shout-alpha-[0-9a-f]{6}/.exec(proposed.text)![0];
    const openId = buttons(msg)[0].custom_id;

    // Mallory may not approve: told privately, nothing pushed, the buttons stay.
    const pushes = host.github.pushes();
    const refused = await press(msg, openId, mallory);
    expect(said(refused, true)).toBe("⛔ Only members with the Manage Channels permission may open or skip pull requests here; nothing was pushed.");
    expect(said(refused, false)).toBe("");
    expect(host.github.pushes()).toBe(pushes);
    expect(host.github.pulls.some((p) => p.head === branch)).toBe(false);
    expect(buttons(current(msg))).toHaveLength(2);

    const opened = await press(msg, openId);
    const pull = host.github.pulls.find((p) => p.head === branch)!;
    // The link is shown in place of the buttons, and nowhere else.
    expect(said(opened, false)).toBe("");
    expect(current(msg).content).toContain(`✅ <@${h.fake.alice.id}> opened pull request #${pull.number} from \`${branch}\`: ${pull.html_url}`);
    expect(pull.body).toContain(`/channels/${h.guildId}/${ch}/${msg.id}`);
    expect(pull.body).toMatch(new RegExp(`asked for by \\S+ \\(${mallory.id}\\)`));
    expect(host.hostGit("diff", "--name-only", "main", branch)).toBe("src/a.txt");
    expect(host.hostGit("show", `${branch}:src/a.txt`)).toBe("alpha\nALPHA");
    expect(host.hostGit("rev-parse", "main")).toBe(host.mainTip);
    expect(buttons(current(msg))).toEqual([]);
    const kinds = (await stack.client.audit(room(ch))).entries.filter((e) => e.kind.startsWith("pr-")).map((e) => e.kind);
    expect(kinds).toEqual(["pr-proposed", "pr-opened"]);

    // Opened again (a click kept from before the edit): one pull request, the clicker told where it is.
    const twice = await press(msg, openId);
    expect(said(twice, true)).toBe(`This change is already opened: ${pull.html_url}`);
    expect(said(twice, false)).toBe("");
    expect(host.github.pulls.filter((p) => p.head === branch)).toHaveLength(1);

    // More work: the next proposal updates the same pull request.
    await command(ch, "policy", { mode: "auto" });
    await modelChanges(ch, "cd ~/repo && echo beta > src/b.txt");
    const again = await command(ch, "pr");
    expect(again.text).toContain(`(updates #${pull.number})`);
    await press(again.rec.original!, buttons(again.rec.original!)[0].custom_id);
    expect(current(again.rec.original!).content).toContain(`✅ <@${h.fake.alice.id}> updated pull request #${pull.number} from \`${branch}\`: ${pull.html_url}`);
    expect(host.github.pulls.filter((p) => p.head === branch)).toHaveLength(1);
  });

  it("Discord refusing everything the click on Open said after the Worker opened the pull request: the next click shows the link in place of the buttons, exactly once, and GitHub has one pull request", async () => {
    const ch = h.fake.addChannel(h.guildId, "pr-lost-link");
    await command(ch, "repo", { name: "acme/widgets" });
    await modelChanges(ch, "cd ~/repo && echo eta > src/h.txt");
    const msg = (await command(ch, "pr", { title: "Add eta" })).rec.original!;
    const branch = /duet\/add-eta-[0-9a-f]{6}/.exec(msg.content)![0];
    const openId = buttons(msg)[0].custom_id;
    // Whatever the click says after the Worker's answer (the proposal's edit, a message after it) is refused: it never reaches the channel.
    h.fake.failNext(2, { route: "/webhooks/" });
    await press(msg, openId);
    const pull = host.github.pulls.find((p) => p.head === branch)!;
    const showing = () => h.fake.messagesIn(ch).filter((m) => !(Number(m.flags ?? 0) & EPHEMERAL) && m.content.includes(pull.html_url));
    expect(showing()).toHaveLength(0);
    expect(buttons(current(msg))).toHaveLength(2);

    // The next click (anyone's, on the buttons still there) is answered with the pull request already open, and shows it.
    const again = await press(msg, openId);
    expect(said(again, true)).toBe(`This change is already opened: ${pull.html_url}`);
    expect(showing().map((m) => m.id)).toEqual([msg.id]);
    expect(current(msg).content).toContain(`✅ <@${h.fake.alice.id}> opened pull request #${pull.number} from \`${branch}\`: ${pull.html_url}`);
    expect(buttons(current(msg))).toEqual([]);
    expect(host.github.pulls.filter((p) => p.head === branch)).toHaveLength(1);
    expect(host.hostGit("diff", "--name-only", "main", branch)).toBe("src/h.txt");
  });

  it("Discord refusing only the edit that shows the link: the clicker is told the link privately, with what shows it to the channel", async () => {
    const ch = h.fake.addChannel(h.guildId, "pr-edit-refused");
    await command(ch, "repo", { name: "acme/widgets" });
    await modelChanges(ch, "cd ~/repo && echo theta > src/t.txt");
    const msg = (await command(ch, "pr", { title: "Add theta" })).rec.original!;
    const branch = /duet\/add-theta-[0-9a-f]{6}/.exec(msg.content)![0];
    h.fake.failNext(1, { route: "PATCH /webhooks/" });
    const clicked = await press(msg, buttons(msg)[0].custom_id);
    const pull = host.github.pulls.find((p) => p.head === branch)!;
    expect(said(clicked, true)).toBe(`The pull request is open: ${pull.html_url}. Its link could not be shown in place of the buttons; Open again shows it there.`);
    expect(said(clicked, false)).toBe("");
    expect(buttons(current(msg))).toHaveLength(2);
  });

  it("no repository, an oversized title, Skip, a forged button and an unknown proposal: one line each, nothing pushed", async () => {
    const ch = h.fake.addChannel(h.guildId, "pr-bad");
    expect(await command(ch, "pr")).toMatchObject({ text: "📦 No repository is linked here, so there is no change to propose; `/duet repo name:owner/name` links one.", ephemeral: false });
    const long = await command(ch, "pr", { title: "t".repeat(201) });
    expect(long).toMatchObject({ text: "⚠️ That title is 201 characters; a pull request's title is at most 200.", ephemeral: true });

    await command(ch, "repo", { name: "acme/widgets" });
    await modelChanges(ch, "cd ~/repo && echo zeta > src/z.txt");
    const proposed = await command(ch, "pr", { title: "@everyone <@&123> **Zeta**" });
    // A hostile title is shown as code, never as markup (and the bot's messages allow no mentions); the branch stays tame.
    expect(proposed.rec.original!.content).toContain("`@everyone <@&123> **Zeta**`");
    expect(proposed.rec.original!.content).toMatch(/Branch `duet\/everyone-123-zeta-[0-9a-f]{6}`/);
    const msg = proposed.rec.original!;
    const [open, skip] = buttons(msg).map((b) => b.custom_id);
    const pushes = host.github.pushes();

    const forged = await press(msg, "duet-pr:open:../../x");
    expect(said(forged, true) || forged.original?.content).toBe(NOT_A_PROPOSAL);
    const unknown = await press(msg, "duet-pr:open:0badc0de");
    expect(said(unknown, true)).toContain("That pull request proposal is no longer open to a click: nothing was pushed.");

    const skipped = await press(msg, skip);
    expect(current(msg).content).toContain(`⏭️ Skipped by <@${h.fake.alice.id}>: nothing was pushed.`);
    expect(buttons(current(msg))).toEqual([]);
    expect(said(skipped, false)).toBe("");
    const late = await press(msg, open);
    expect(said(late, true)).toBe("This change was skipped, so it was not opened: propose it again.");
    expect(host.github.pushes()).toBe(pushes);
  });
});

describe("Discord: /duet repo name:sync", () => {
  it("checks the linked branch out at repo/ now and tells the channel the commit, for a member who may run but not link; with nothing linked it says so; each sync is one Worker call", async () => {
    const ch = h.fake.addChannel(h.guildId, "repo-sync");
    /** What the sync said and asked of the Worker about this room. */
    const sync = async () => {
      const from = h.workerRequests.length;
      const { text, ephemeral } = await command(ch, "repo", { name: "sync" }, mallory);
      const calls = h.workerRequests.slice(from).filter((r) => r.path.startsWith(`/api/rooms/${room(ch)}/`));
      return { text, ephemeral, calls: calls.map((r) => `${r.method} ${r.path.split("/").slice(4).join("/")}`) };
    };
    // Discord's reply was deferred in the channel before the Worker was asked, as for /duet pr; the refusal is the Worker's own line.
    expect(await sync()).toEqual({
      text: expect.stringMatching(/^⚠️ No repository is linked here, so there is nothing to sync: link one with the repo command first, e\.g\. `acme\/widgets` or `acme\/widgets@main`\. \(ref [0-9a-f]{8}\)$/),
      ephemeral: false,
      calls: ["POST repo/sync"],
    });
    const tip = await host.repos.commit("acme/widgets", [{ "src/s.txt": "discord\n" }], "discord-synced", "main");
    await command(ch, "repo", { name: "acme/widgets@discord-synced" });
    expect(await sync()).toEqual({ text: `📦 <@${mallory.id}> synced \`acme/widgets\`, branch \`discord-synced\`: repo/ is at \`${tip.slice(0, 12)}\`.`, ephemeral: false, calls: ["POST repo/sync"] });
    expect((await stack.client.exec(room(ch), { cmd: "git -C ~/repo rev-parse HEAD" })).result.stdout.trim()).toBe(tip);
  });
});
