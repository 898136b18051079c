import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startFakeDiscord, type FakeDiscord, type FakeMessage } from "../fakes/discord/index.ts";
import { startPrHost, type PrHost } from "../helpers/pr-host.ts";
import { startStack, type Stack } from "../helpers/stack.ts";
import { buildBots, type Built, runBuilt } from "./harness.ts";

/**
 * The pull request's link after a click on Open survives the built Discord
 * bot: it is SIGKILLed after the Worker pushed and opened the pull request
 * and before the channel showed it (its edit of the proposal is held at the
 * fake Discord: the barrier, and it never lands). The bot started again takes
 * the next click on Open, which the Worker answers with the pull request it
 * already opened: the channel then shows the link exactly once, and GitHub
 * has one pull request. The real Worker and bubblewrap executor, the fake
 * GitHub over `git http-backend`.
 */

const EPHEMERAL = 64;

let built: Built;
let host: PrHost;
let stack: Stack;
let fake: FakeDiscord;
let guildId: string;

beforeAll(async () => {
  built = await buildBots();
  host = await startPrHost();
  stack = await startStack({ executor: "real", vars: { ...host.vars, MODEL_TIMEOUT_MS: "30000" } });
  fake = await startFakeDiscord({ heartbeatIntervalMs: 1_000 });
  guildId = fake.addGuild("pr-kill");
}, 180_000);
afterAll(async () => {
  await fake?.close();
  await stack?.stop();
  await host?.stop();
  built?.remove();
});

const startBot = () => runBuilt(built, "discord", { DISCORD_TOKEN: fake.token, DISCORD_API_URL: fake.api, DUET_WORKER_URL: stack.workerUrl, DUET_API_TOKEN: stack.token });
const fromBot = (channel: string) => fake.messagesIn(channel).filter((m) => m.author.id === fake.botUser.id && !(Number(m.flags ?? 0) & EPHEMERAL));
const openButton = (m: FakeMessage) => ((m.components ?? []) as { components: { custom_id: string }[] }[]).flatMap((r) => r.components).find((b) => b.custom_id.startsWith("duet-pr:open:"));

describe("the pull request's link after Open, with the built Discord bot", () => {
  it("a bot SIGKILLed after the Worker opened the pull request and before the channel showed it: the next click shows the link exactly once, and GitHub has one pull request", async () => {
    const channel = fake.addChannel(guildId, "pr-open-kill");
    await stack.client.setRepo(`discord-${guildId}-${channel}`, { repo: "acme/widgets", userId: fake.alice.id });
    const first = startBot();
    let second: ReturnType<typeof startBot> | null = null;
    try {
      await first.waitForOutput("connected as Duet");
      fake.message(channel, "SAY: Added kappa. <run>cd ~/repo && echo kappa > src/k.txt</run>\n<pr>Add kappa</pr>", { mention: true });
      await expect.poll(() => fromBot(channel).some((m) => openButton(m)), { timeout: 60_000 }).toBe(true);
      const proposal = fromBot(channel).find((m) => openButton(m))!;
      const branch = /duet\/add-kappa-[0-9a-f]{6}/.exec(proposal.content)![0];

      // The bot's first call to Discord after the Worker's answer (the edit of the proposal) is held: the pull request is open, the channel shows nothing yet.
      const held = fake.hold("PATCH /webhooks/");
      fake.click(proposal, openButton(proposal)!.custom_id, fake.alice);
      await held.arrived;
      expect(host.github.pulls.filter((p) => p.head === branch)).toHaveLength(1);
      first.child.kill("SIGKILL");
      await first.exited;
      // The dead bot's edit never lands: the call it left at Discord fails, as one that never arrived.
      fake.failNext(1, { route: "PATCH /webhooks/" });
      held.release();
      await fake.waitForCall((c) => c.route.startsWith("PATCH /webhooks/") && c.status === 403, 10_000, "the dead bot's edit refused");
      const pull = host.github.pulls.find((p) => p.head === branch)!;
      expect(fromBot(channel).filter((m) => m.content.includes(pull.html_url))).toHaveLength(0);

      second = startBot();
      await second.waitForOutput("connected as Duet");
      const retry = fake.click(fake.world.messages.get(proposal.id)!, openButton(proposal)!.custom_id, fake.alice);
      // Barrier: the clicker is told it is open, the click's last word; everything the click does to the channel came before it.
      await expect.poll(() => retry.followups.some((m) => Number(m.flags ?? 0) & EPHEMERAL), { timeout: 30_000 }).toBe(true);
      expect(retry.followups.map((m) => m.content)).toEqual([`This change is already opened: ${pull.html_url}`]);

      const showing = fromBot(channel).filter((m) => m.content.includes(pull.html_url));
      expect(showing.map((m) => m.id)).toEqual([proposal.id]);
      expect(showing[0].content).toContain(`✅ <@${fake.alice.id}> opened pull request #${pull.number} from \`${branch}\`: ${pull.html_url}`);
      expect(openButton(showing[0])).toBeUndefined();
      expect(host.github.pulls.filter((p) => p.head === branch)).toHaveLength(1);
      expect(host.hostGit("diff", "--name-only", "main", branch)).toBe("src/k.txt");
    } catch (err) {
      console.log("BOT1", first.output(), "BOT2", second?.output());
      throw err;
    } finally {
      if (second) expect(await second.stop()).toBe(0);
    }
  }, 240_000);
});
