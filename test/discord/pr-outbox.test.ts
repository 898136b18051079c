import { describe, expect, it } from "vitest";
import type { FakeMessage } from "../fakes/discord/index.ts";
import { startedForTests } from "../helpers/lifecycle.ts";
import type { PrHost } from "../helpers/pr-host.ts";
import type { Stack } from "../helpers/stack.ts";
import type { DiscordHarness } from "./harness.ts";
import { startDiscordPrSetup } from "./pr-setup.ts";

/**
 * The model's `<pr>` when its answer reaches Discord through the outbox (the
 * bot that was asked died mid-turn): the real discord.js bot's delivery loop
 * posts the answer, then proposes the change with Open and Skip in the same
 * channel, once. Real Worker and executor, the fake GitHub over `git http-backend`.
 */

let stack: Stack;
let h: DiscordHarness;
let host: PrHost;

startedForTests(
  // Answers unconfirmed for 300 ms are offered in the feed (15 s in production).
  () => startDiscordPrSetup({ DUET_DELIVERY_GRACE_MS: "300" }),
  (s) => ({ stack, h, host } = s),
);

const hasOpen = (m: FakeMessage) => JSON.stringify(m.components ?? []).includes("duet-pr:open:");
const fromBot = (ch: string) => h.fake.messagesIn(ch).filter((m) => m.author.id === h.fake.botUser.id);

describe("Discord: the model's <pr> in an answer the outbox delivers", () => {
  it("proposes the change after the answer, once, with Open and Skip", async () => {
    const ch = h.fake.addChannel(h.guildId, "pr-outbox");
    const room = `discord-${h.guildId}-${ch}`;
    await stack.client.setRepo(room, { repo: "acme/widgets", userId: h.fake.alice.id });
    const deliver = { platform: "discord" as const, place: { channel: ch } };
    await stack.client.message(room, { text: "SAY: Added kappa. <run>cd ~/repo && echo kappa > src/k.txt</run>\n<pr>Add kappa</pr>", userId: h.fake.alice.id, idempotencyKey: "pr-outbox-1", deliver });

    await expect.poll(() => fromBot(ch).some(hasOpen), { timeout: 30_000 }).toBe(true);
    const said = fromBot(ch);
    expect(said[0].content).toContain("Added kappa.");
    const proposal = said.find(hasOpen)!;
    expect(said.indexOf(proposal)).toBeGreaterThan(0);
    expect(proposal.content).toMatch(new RegExp(`<@${h.fake.alice.id}> proposes a pull request to \`acme/widgets\` \\(\`main\`\\): \`Add kappa\`\nBranch \`duet/add-kappa-[0-9a-f]{6}\``));

    // Barrier: a later answer through the same delivery loop is posted after anything more the first could have caused.
    await stack.client.message(room, { text: "SAY: later-marker", userId: h.fake.alice.id, idempotencyKey: "pr-outbox-2", deliver });
    await expect.poll(() => fromBot(ch).some((m) => m.content.includes("later-marker")), { timeout: 30_000 }).toBe(true);
    expect(fromBot(ch).filter(hasOpen)).toHaveLength(1);
    expect(host.github.pushes()).toBe(0);
  });
});
