import { renderReply as discordReply } from "@duet/discord";
import { HELP_INTRO, type MessageResponse, notRunNote, type Reply, resetText, STOP_WORDS, STOPPED_NOTE } from "@duet/shared";
import { renderReply as slackReply } from "@duet/slack";
import { describe, expect, it } from "vitest";
import { makeStyle, renderReply as cliReply } from "../scripts/cli/render.ts";

/**
 * Each sentence of the flow is written once, in shared: Slack, Discord and the
 * terminal show the same words, each in its own markup. The expected text is
 * the shared function's, so a front end that writes its own version fails here.
 */

/** What a person reads of a reply on each front end, markup and all. */
function everywhere(reply: Reply): Record<"slack" | "discord" | "cli", string> {
  const slack = slackReply(reply, { place: "thread", room: "slack-T1-C1" });
  return {
    slack: JSON.stringify(slack.blocks),
    discord: discordReply(reply).map((m) => m.content).join("\n"),
    cli: cliReply(reply, "demo", { style: makeStyle(false), baseUrl: "http://127.0.0.1:8787", tokenSource: "env" }),
  };
}

const run = { cmd: "ls", exitCode: 0, stdout: "a\n", stderr: "", truncated: false, durationMs: 3 };

describe("the flow's words", () => {
  it("say what was not run under approve with the limit that held (proposals count), the same on Slack, Discord and the CLI", () => {
    // Under approve nothing ran, two commands wait, one was past the cap: the cap was 2, not 0.
    const answer: MessageResponse = {
      reply: "",
      explanation: "Cleaning up.",
      messages: [],
      runs: [],
      pending: [
        { id: "a1", cmd: "rm a", expiresAt: Date.now() + 60_000 },
        { id: "b2", cmd: "rm b", expiresAt: Date.now() + 60_000 },
      ],
      skipped: ["rmc"],
    };
    const note = notRunNote(answer, ["§"]).replace("§", "");
    expect(note).toBe("Not run (limit of 2 commands per reply): ");
    for (const [where, text] of Object.entries(everywhere({ kind: "answer", answer, question: "clean", user: "U1" }))) {
      expect(text, where).toContain(note);
      expect(text, where).toMatch(/rmc/);
    }
  });

  it("mark a stopped answer, the same on Slack, Discord and the CLI", () => {
    const answer: MessageResponse = { reply: "Partial", explanation: "Partial", messages: [], runs: [run], stopped: true };
    for (const [where, text] of Object.entries(everywhere({ kind: "answer", answer, question: "q", user: "U1" }))) expect(text, where).toContain(STOPPED_NOTE);
  });

  it("give the stop notice and a reset in one wording, on Slack, Discord and the CLI", () => {
    for (const [where, text] of Object.entries(everywhere({ kind: "hint", text: STOP_WORDS.stopping }))) expect(text, where).toContain(STOP_WORDS.stopping);
    const reset = everywhere({ kind: "reset", user: "123", errors: [] });
    // The person is named in each platform's markup; the sentence after it is shared.
    const sentence = resetText("", [], "").trim();
    for (const [where, text] of Object.entries(reset)) expect(text, where).toContain(sentence);
  });

  it("introduce Duet in help in one wording on Slack and Discord", () => {
    const { slack, discord } = everywhere({ kind: "help" });
    expect(slack).toContain(HELP_INTRO);
    expect(discord).toContain(HELP_INTRO);
  });
});
