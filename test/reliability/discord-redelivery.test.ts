import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { interactionAnswer, modelCallsFor, startDiscordHarness, type DiscordHarness } from "../discord/harness.ts";
import { startAnotherDiscordBot } from "./discord-bot.ts";
import { type Rig, startRig } from "./rig.ts";
import { turn } from "./tally.ts";

/**
 * Discord replays gateway events after a resume, and a redeployed bot may see
 * an interaction its predecessor already took. An interaction can be
 * acknowledged once, and `/duet ask` carries its id to the Worker as the
 * idempotency key: one model call, one command run, one answer.
 */

let rig: Rig;
let h: DiscordHarness;

beforeAll(async () => {
  rig = await startRig();
  h = await startDiscordHarness(rig.stack);
});

afterAll(async () => {
  await h?.stop();
  await rig?.stop();
});

const refusedDeferrals = (id: string) => h.fake.calls.filter((c) => c.path.includes(`/interactions/${id}/`) && c.errorCode === 40060).length;

describe("Discord events delivered again", () => {
  // It stops the harness's bot: keep it last in the file.
  it("an interaction replayed twice at once, then once more to a restarted bot: one model call, one command run, one answer", async () => {
    const ch = h.fake.addChannel(h.guildId, "replayed");
    const room = `discord-${h.guildId}-${ch}`;
    const marker = `replayed-${ch}`;
    const t = turn("Discord interaction delivered four times");
    const rec = h.fake.interaction(ch, { subcommand: "ask", options: { prompt: `SAY: ${marker} <run>echo ${marker} >> runs.txt</run>` } });
    h.fake.replayInteraction(rec);
    h.fake.replayInteraction(rec);
    const { messages, text } = await interactionAnswer(h, rec);
    await h.fake.waitForCall(() => refusedDeferrals(rec.id) === 2, 20_000, "both replays refused");

    // The restarted bot gets the interaction once more (a replay after its resume).
    await h.bot.stop();
    const restarted = await startAnotherDiscordBot(h.fake, rig.stack);
    try {
      h.fake.replayInteraction(rec);
      await h.fake.waitForCall(() => refusedDeferrals(rec.id) === 3, 20_000, "the restarted bot's refused deferral");
      // A fresh interaction answered by the restarted bot: the replay had its chance to misbehave.
      const laterTurn = turn("Discord interaction after the replays");
      const later = h.fake.interaction(ch, { subcommand: "run", options: { command: "cat runs.txt" } });
      await h.fake.waitForCall((c) => c.path.includes(later.token) && c.method === "PATCH" && c.status === 200, 20_000, "the answer to the later command");
      laterTurn.answered([later.original, ...later.followups].filter(Boolean));
      // The command ran once: the file the sandbox keeps has one line.
      expect(later.original!.content).toContain(`\n${marker}\n\`\`\``);
      expect(later.original!.content.split(marker).length - 1).toBe(1);
    } finally {
      await restarted.stop();
    }

    t.answered(messages);
    expect(text).toContain(marker);
    expect(rec.followups).toEqual([]);
    // Nothing was posted in the channel outside the interaction's own messages (webhook ones).
    expect(h.fake.messagesIn(ch).filter((m) => m.author.id === h.fake.botUser.id && !m.webhook_id)).toEqual([]);
    expect(modelCallsFor(rig.stack, marker)).toBe(1);
    expect(rig.workspaceFile(room, "runs.txt")).toBe(`${marker}\n`);
    const { messages: history } = await rig.stack.client.history(room);
    // The question and its answer once, then the later direct run (`/duet run`), which joins the history too.
    expect(history.map((m) => `${m.role}:${m.text.split("\n")[0]}`)).toEqual([
      `user:SAY: ${marker} <run>echo ${marker} >> runs.txt</run>`,
      `agent:${marker}`,
      "user:Run: cat runs.txt",
      "agent:Output (cat runs.txt):",
    ]);
  });
});
