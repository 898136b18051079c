import { describe, expect, it } from "vitest";
import { startedForTests } from "../helpers/lifecycle.ts";
import { interactionAnswer, type DiscordHarness } from "../discord/harness.ts";
import type { FakeSlack } from "../fakes/slack/index.ts";
import { answerTo, type BotHandle, mention, newChannel, readable } from "../slack/harness.ts";
import { startChatRig } from "./chat-rig.ts";
import { type Rig, slackRoom } from "./rig.ts";
import type { Fault } from "./pass-through.ts";
import { turn } from "./tally.ts";

/**
 * The sandbox host is down, slow or broken. The model's explanation still
 * reaches the thread, each command says plainly what happened to it, the
 * history holds the whole turn, and the room's sandbox works again (with its
 * files) once the host is back.
 */

let rig: Rig;
let slack: FakeSlack;
let bot: BotHandle;
let discord: DiscordHarness;

// Low, so a command that hangs is stopped quickly; the commands here take milliseconds.
const COMMAND_TIMEOUT_MS = 1_500;

startedForTests(() => startChatRig({ COMMAND_TIMEOUT_MS: String(COMMAND_TIMEOUT_MS) }), (started) => ({ rig, slack, bot, discord } = started));

const INTERNALS = /\n\s+at |\bError:|TypeError|undefined|\[object Object\]|ENOSPC/;

/** A mention whose answer runs `cmd`; returns what the thread shows and what the room remembers. */
async function ask(name: string, channel: string, explanation: string, cmd: string) {
  const t = turn(name);
  const m = await mention(slack, bot, { channel, text: `SAY: ${explanation} <run>${cmd}</run>` });
  const replies = await answerTo(slack, m);
  t.answered(replies);
  const { messages } = await rig.stack.client.history(slackRoom(slack.id.teamId, channel));
  return { seen: readable(replies[0]), reactions: slack.ws.reactionsOn(channel, m.ts), messages };
}

describe("the sandbox host", () => {
  it("down: the command fails with a clear line, the history holds the whole turn, and the files are there when it is back", async () => {
    const channel = newChannel();
    const room = slackRoom(slack.id.teamId, channel);
    await ask("Slack mention before the sandbox outage", channel, "Saving.", "echo kept > kept.txt");
    await rig.stopSandbox();
    let down;
    try {
      down = await ask("Slack mention while the sandbox is down", channel, "down-explanation", "echo lost > lost.txt");
    } finally {
      await rig.startSandbox();
    }
    expect(down.seen).toContain("down-explanation");
    expect(down.seen).toContain("failed: the sandbox executor cannot be reached");
    expect(down.seen).not.toMatch(INTERNALS);
    expect(down.messages.map((x) => x.role)).toEqual(["user", "agent", "user", "agent"]);
    expect(down.messages[3].text).toBe("down-explanation\n\nError (echo lost > lost.txt):\nthe sandbox executor cannot be reached");

    const back = await ask("Slack mention after the sandbox is back", channel, "Listing.", "ls");
    expect(back.seen).toMatch(/exit 0/);
    expect(back.seen).toContain("kept.txt");
    expect(back.seen).not.toContain("lost.txt");
    expect(rig.workspaceFile(room, "kept.txt")).toBe("kept\n");
  });

  it("down, for /duet run on Discord: a clear line instead of output", async () => {
    const ch = discord.fake.addChannel(discord.guildId, "sandbox-down");
    const t = turn("Discord /duet run while the sandbox is down");
    await rig.stopSandbox();
    let answer;
    try {
      answer = await interactionAnswer(discord, discord.fake.interaction(ch, { subcommand: "run", options: { command: "echo nobody-home" } }));
    } finally {
      await rig.startSandbox();
    }
    t.answered(answer.messages);
    // The line ends with the ref of the trace that records the failure.
    expect(answer.text).toMatch(/^⚠️ The sandbox failed \(the sandbox executor cannot be reached\)\. Please try again in a moment\. \(ref [0-9a-f]{8}\)$/);
  });

  it("slow: a command past COMMAND_TIMEOUT_MS is stopped and says so, and the next command runs", async () => {
    const channel = newChannel();
    const slow = await ask("Slack mention with a hanging command", channel, "Waiting.", "echo before-the-wait; sleep 30; echo after-the-wait");
    expect(slow.seen).toMatch(/exit 124/);
    expect(slow.seen).toContain("before-the-wait");
    // The output (lines of their own) stops where the command was killed.
    expect(slow.seen).toMatch(/^before-the-wait$/m);
    expect(slow.seen).not.toMatch(/^after-the-wait$/m);
    expect(slow.seen).toContain(`[sandbox] command timed out after ${COMMAND_TIMEOUT_MS} ms and was killed`);
    expect(slow.messages.map((x) => x.role)).toEqual(["user", "agent"]);
    const next = await ask("Slack mention after the hanging command", channel, "Again.", "echo still-works");
    expect(next.seen).toContain("still-works");
    expect(next.messages.map((x) => x.role)).toEqual(["user", "agent", "user", "agent"]);
  });

  const broken: [Fault, string][] = [
    ["http-500", "the sandbox executor answered HTTP 500"],
    ["not-json", "the sandbox executor answered with something that is not JSON"],
    ["reset", "the sandbox executor cannot be reached"],
  ];

  it.each(broken)("erroring (%s): the command fails with a clear line, nothing ran, the next command runs", async (how, expected) => {
    const channel = newChannel();
    const room = slackRoom(slack.id.teamId, channel);
    const marker = `broken-${how}-${channel}`;
    rig.failNextCommand(marker, how);
    const res = await ask(`Slack mention with the sandbox erroring (${how})`, channel, "Trying.", `echo ${marker} > broken.txt`);
    expect(res.seen).toContain(`failed: ${expected}`);
    expect(res.seen).not.toMatch(INTERNALS);
    expect(res.reactions).toContain("white_check_mark");
    expect(res.messages.map((x) => x.role)).toEqual(["user", "agent"]);
    expect(res.messages[1].text).toBe(`Trying.\n\nError (echo ${marker} > broken.txt):\n${expected}`);
    expect(rig.workspaceFile(room, "broken.txt")).toBeNull();
    const next = await ask(`Slack mention after the sandbox erred (${how})`, channel, "Again.", "echo recovered");
    expect(next.seen).toContain("recovered");
  });

  it("busy for longer than a command may run: a clear line, and the turn is whole", async () => {
    // Each Retry-After is a second and a command may run COMMAND_TIMEOUT_MS (1.5 s): the
    // Worker waits out at most one busy answer before it gives up. (A line that frees up
    // in time is waited out: sandbox-busy.test.ts.)
    const channel = newChannel();
    const marker = `busy-always-${channel}`;
    rig.failNextCommand(marker, "busy", 10);
    const res = await ask("Slack mention with the sandbox busy throughout", channel, "Trying.", `echo ${marker}`);
    expect(res.seen).toMatch(/failed: the sandbox executor stayed busy for \d+ s \(too many commands waiting\); try again shortly/);
    expect(res.seen).not.toMatch(INTERNALS);
    expect(res.messages.map((x) => x.role)).toEqual(["user", "agent"]);
    expect(res.messages[1].text).toMatch(/^Trying\.\n\nError \(echo busy-always-[^)]+\):\nthe sandbox executor stayed busy for \d+ s/);
  });

  it("erroring, for /duet run on Discord: a clear line, and the sandbox's own message stays out of chat", async () => {
    const ch = discord.fake.addChannel(discord.guildId, "sandbox-500");
    const t = turn("Discord /duet run with the sandbox erroring");
    rig.failNextCommand(`run-500-${ch}`, "http-500");
    const { messages, text } = await interactionAnswer(discord, discord.fake.interaction(ch, { subcommand: "run", options: { command: `echo run-500-${ch}` } }));
    t.answered(messages);
    expect(text).toMatch(/^⚠️ The sandbox failed \(the sandbox executor answered HTTP 500\)\. Please try again in a moment\. \(ref [0-9a-f]{8}\)$/);
  });
});
