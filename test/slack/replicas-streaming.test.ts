import { describe, expect, it } from "vitest";
import type { FakeSlack } from "../fakes/slack/index.ts";
import { startedForTests } from "../helpers/lifecycle.ts";
import { answerTo, type BotHandle, mention, type Mentioned, newChannel, readable, startSlackSetup } from "./harness.ts";

/**
 * Two Slack replicas (SLACK_REPLICAS=many) answering one busy channel, its
 * mentions alternating between them as a round-robin balancer sends them: the
 * answers' new messages take the channel's shared pace in turn, each replica's
 * slot after the other's. Each answer takes the model about 2.5 s (ten pieces
 * 250 ms apart), longer than the channel's pace, so a pace that keeps up lets
 * every answer's message start while it is being written and grow as it goes;
 * a pace that falls behind the room (slots further apart than the answers take)
 * leaves later answers complete before their message could start, posted whole.
 */

let slack: FakeSlack;
let bots: BotHandle[];

startedForTests(
  () => startSlackSetup([{ SLACK_REPLICAS: "many" }, { SLACK_REPLICAS: "many" }], { vars: { MODEL_TIMEOUT_MS: "60000" } }),
  (s) => ({ slack, bots } = s),
);

const ASKS = 6;

describe("two replicas in one busy channel", () => {
  it("streams every answer: each message starts before its answer is done and grows in appends", async () => {
    const channel = newChannel();
    const asked: { m: Mentioned; marker: string }[] = [];
    for (let i = 0; i < ASKS; i++) {
      const marker = `grows-${i}-${channel}`;
      const text = `CHUNK:10 DRIP:250 SAY: ${marker} ${"and then some more words ".repeat(3)}end-${marker}`;
      asked.push({ m: await mention(slack, bots[i % 2], { channel, text, user: `U0GROW${i}` }), marker });
    }
    const grewBy: number[] = [];
    for (const { m, marker } of asked) {
      const replies = await answerTo(slack, m);
      expect(replies).toHaveLength(1);
      expect(readable(replies[0])).toContain(`end-${marker}`);
      // What the person saw: a streamed message, shown with part of the answer, then more of it in later appends.
      const answer = slack.ws.everything(channel).find((msg) => msg.ts === replies[0].ts)!;
      expect(answer.via, `answer ${marker} was posted whole`).toBe("chat.startStream");
      grewBy.push(answer.stream!.appends.filter((a) => a.text).length - 1);
    }
    expect(grewBy.every((n) => n >= 1), `appends with text after each answer's first words: ${grewBy.join(", ")}`).toBe(true);
  }, 180_000);
});
