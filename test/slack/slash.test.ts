import { describe, expect, it } from "vitest";
import { startedForTests } from "../helpers/lifecycle.ts";
import { type FakeSlack } from "../fakes/slack/index.ts";
import type { Stack } from "../helpers/stack.ts";
import { answerTo, type BotHandle, bodyText, fencesBalanced, mention, newChannel, readable, slash, slashAnswerIn, slashResponse, startSlackSetup } from "./harness.ts";

/**
 * `/duet` end to end: acked at once, answered through the response_url the fake
 * Slack issued (`ask` as the bot, live: slash-live.test.ts), against the real Worker.
 */

let stack: Stack;
let slack: FakeSlack;
let bot: BotHandle;

startedForTests(() => startSlackSetup(), (s) => ({ stack, slack, bots: [bot] } = s));


describe("/duet", () => {
  it("ask: acks with a working line, then answers in the channel, as the bot, with the question and the output", async () => {
    const channel = newChannel();
    const { delivery, fields } = await slash(slack, bot, channel, "ask SAY: Checking <run>echo slash-ask-ok</run>");
    expect(delivery.status).toBe(200);
    expect(JSON.parse(delivery.text)).toMatchObject({ response_type: "ephemeral", text: expect.stringContaining("thinking") });
    const answer = await slashAnswerIn(slack, channel);
    const text = readable(answer);
    expect(text).toContain("<@U0ALICE> asked: SAY: Checking &lt;run&gt;echo slash-ask-ok&lt;/run&gt;");
    expect(text).toContain("`$ echo slash-ask-ok`");
    expect(text).toMatch(/```\nslash-ask-ok\n```/);
    // Everyone in the channel sees it; the response_url is kept for what the bot cannot post.
    expect(slack.responses.filter((r) => fields.response_url.endsWith(r.id))).toEqual([]);
  });

  it("run: executes directly in the channel's sandbox and shows exit code and output", async () => {
    const channel = newChannel();
    const { delivery, fields } = await slash(slack, bot, channel, "run echo direct-run && exit 3");
    expect(delivery.status).toBe(200);
    const body = await slashResponse(slack, fields);
    const text = bodyText(body);
    expect(body.response_type).toBe("in_channel");
    expect(text).toContain("`$ echo direct-run &amp;&amp; exit 3`");
    expect(text).toMatch(/exit 3/);
    expect(text).toMatch(/```\ndirect-run\n```/);
    expect(stack.model.calls.some((c) => JSON.stringify(c.messages).includes("direct-run"))).toBe(false);
  });

  it("run: long output is cut inline and uploaded whole to the channel", async () => {
    const channel = newChannel();
    const { fields } = await slash(slack, bot, channel, "run seq 1 5000");
    const body = await slashResponse(slack, fields);
    const blocks = (body.blocks ?? []) as { type: string; text?: { text: string } }[];
    for (const b of blocks.filter((x) => x.type === "section")) {
      expect(b.text!.text.length).toBeLessThanOrEqual(3000);
      expect(fencesBalanced(b.text!.text)).toBe(true);
    }
    const file = await slack.waitFor(() => slack.ws.everything(channel).find((m) => m.files?.length)?.files?.[0], "the uploaded output");
    expect(file.filename).toBe("duet-output-1.txt");
    expect(file.content!.toString("utf8")).toContain("\n4999\n5000");
  });

  it("history: shows the room's recent messages to the caller only", async () => {
    const channel = newChannel();
    const m = await mention(slack, bot, { channel, text: "SAY: remembered-line" });
    await answerTo(slack, m);
    const { fields } = await slash(slack, bot, channel, "history", "U0CAROL");
    const body = await slashResponse(slack, fields);
    expect(body.response_type).toBe("ephemeral");
    const text = bodyText(body);
    expect(text).toContain("<@U0ALICE>: SAY: remembered-line");
    expect(text).toContain("*Duet*: remembered-line");
    const shown = slack.ws.ephemeral.filter((e) => e.channel === channel);
    expect(shown.map((e) => e.user)).toEqual(["U0CAROL"]);
  });

  it("reset: clears the room, says so in the channel, and its audit says who", async () => {
    const channel = newChannel();
    const m = await mention(slack, bot, { channel, text: "SAY: to-be-forgotten" });
    await answerTo(slack, m);
    const room = `slack-${slack.id.teamId}-${channel}`;
    expect((await stack.client.history(room)).messages).toHaveLength(2);
    const { fields } = await slash(slack, bot, channel, "reset");
    const body = await slashResponse(slack, fields);
    expect(body.response_type).toBe("in_channel");
    expect(bodyText(body)).toMatch(/<@U0ALICE> reset Duet here: the conversation history is cleared/);
    expect((await stack.client.history(room)).messages).toEqual([]);
    // The audit says who reset the room.
    expect((await stack.client.audit(room)).entries).toEqual([{ at: expect.any(Number), kind: "reset", requestedBy: "U0ALICE" }]);
  });

  it.each([
    ["help", null],
    ["", null],
    ["dance now", /dance/i],
    ["ask", null],
  ])("%j shows the help to the caller only", async (text, problem) => {
    const channel = newChannel();
    const { delivery, fields } = await slash(slack, bot, channel, text);
    expect(delivery.status).toBe(200);
    const body = await slashResponse(slack, fields);
    expect(body.response_type).toBe("ephemeral");
    const shown = bodyText(body);
    for (const sub of ["ask", "run", "history", "reset", "help"]) expect(shown).toContain(sub);
    if (problem) expect(shown).toMatch(problem);
    for (const b of (body.blocks ?? []) as { text?: { text: string } }[]) expect(fencesBalanced(b.text?.text ?? "")).toBe(true);
  });

  it("answers a Worker failure with a helpful line where the answer would have gone", async () => {
    const channel = newChannel();
    await slash(slack, bot, channel, "ask FAIL:503");
    expect(readable(await slashAnswerIn(slack, channel))).toMatch(/:warning: .*(model|try again)/i);
  });
});
