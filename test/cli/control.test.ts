import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { WorkerClient } from "@duet/shared";
import { Readable } from "node:stream";
import { runChat } from "../../scripts/cli/chat.ts";
import { runAction, runDecision, runPickedDecision, type CliContext } from "../../scripts/cli/commands.ts";
import { parseArgs } from "../../scripts/cli/args.ts";
import { makeStyle } from "../../scripts/cli/render.ts";
import { startedForTests } from "../helpers/lifecycle.ts";
import { startStack, type Stack } from "../helpers/stack.ts";

/** `duet policy` and `duet audit` through the CLI's own code against a real Worker. */

let stack: Stack;
startedForTests(() => startStack(), (s) => (stack = s));
/** The CLI's state folder, shared by the commands of this file as one person's terminal shares it. */
const stateDir = mkdtempSync(join(tmpdir(), "duet-cli-state-"));
afterAll(() => rmSync(stateDir, { recursive: true, force: true }));

function terminal() {
  const out: string[] = [];
  const err: string[] = [];
  const ctx: CliContext = {
    client: stack.client,
    style: makeStyle(false),
    secrets: [stack.token],
    userId: "cli:tester",
    baseUrl: stack.workerUrl,
    tokenSource: "the test",
    stateDir,
    out: (t) => out.push(t),
    err: (t) => err.push(t),
  };
  return { ctx, printed: (code: number) => ({ code, out: out.join("\n"), err: err.join("\n") }) };
}

async function duet(...argv: string[]): Promise<{ code: number; out: string; err: string }> {
  const { ctx, printed } = terminal();
  const command = parseArgs(argv);
  if (command.kind === "help" || command.kind === "chat" || command.kind === "get" || command.kind === "put" || command.kind === "pr-click" || command.kind === "trace") throw new Error("not a room action");
  if (command.kind === "decide") return printed(await ("pick" in command ? runPickedDecision(command.room, command, ctx) : runDecision(command.room, command, ctx)));
  const { room, ...action } = command;
  return printed(await runAction(room, action, ctx));
}

/** `duet chat ROOM` fed `lines`, as if typed one after another. */
async function chat(room: string, lines: string[]) {
  const { ctx, printed } = terminal();
  return printed(await runChat(room, ctx, Readable.from(lines.map((l) => `${l}\n`)), process.stdout));
}

const ran = (cmd: string) => stack.executor!.calls.some((c) => c.command === cmd);

describe("duet policy and duet audit", () => {
  it("shows and sets the run policy; under approve an ask lists its commands and runs none", async () => {
    expect((await duet("policy", "cliroom")).out).toBe("The run policy here is auto (the default): Duet runs the commands it proposes at once.");
    expect((await duet("policy", "cliroom", "approve")).out).toBe("cli:tester set the run policy to approve: each command Duet proposes waits for someone allowed to click Run or Skip.");
    const asked = await duet("ask", "cliroom", "SAY: Here. <run>echo cli-proposed</run>");
    expect(asked.out).toContain("Waiting for approval");
    expect(asked.out).toContain("echo cli-proposed");
    expect(stack.executor!.calls.some((c) => c.command === "echo cli-proposed")).toBe(false);
  });

  it("lists what ran, who set the policy and who reset, oldest first", async () => {
    await duet("run", "auditroom", "echo cli-direct");
    await duet("policy", "auditroom", "auto");
    await duet("reset", "auditroom");
    await duet("run", "auditroom", "echo after-reset");
    const { code, out } = await duet("audit", "auditroom");
    expect(code).toBe(0);
    // A reset keeps the audit and adds one line saying who.
    expect(out.split("\n")).toEqual([
      "Audited events in this room, oldest first:",
      expect.stringMatching(/· cli:tester ran `echo cli-direct` \(exit 0, \d+ ms\)$/),
      expect.stringMatching(/· cli:tester set the run policy to auto$/),
      expect.stringMatching(/· cli:tester reset Duet$/),
      expect.stringMatching(/· cli:tester ran `echo after-reset` \(exit 0, \d+ ms\)$/),
    ]);
  });

  it("runs and skips proposed commands by the id `duet ask` lists, once each", async () => {
    await duet("policy", "approveroom", "approve");
    const asked = await duet("ask", "approveroom", "SAY: Two. <run>echo cli-approved</run> <run>echo cli-skipped</run>");
    expect(asked.out).toMatch(/\[1\] echo cli-approved\n\s+id [0-9a-f-]{36}\n\s+\[2\] echo cli-skipped\n\s+id [0-9a-f-]{36}/);
    const [first, second] = [...asked.out.matchAll(/id ([0-9a-f-]{36})/g)].map((m) => m[1]);

    const approved = await duet("approve", "approveroom", first);
    expect(approved.code).toBe(0);
    expect(approved.out).toContain("cli:tester ran `echo cli-approved`");
    expect(approved.out).toContain("cli-approved\n");
    expect(ran("echo cli-approved")).toBe(true);

    const skipped = await duet("skip", "approveroom", second);
    expect(skipped.out).toContain("cli:tester skipped `echo cli-skipped`");
    expect(ran("echo cli-skipped")).toBe(false);

    // A decision is final: a second one changes nothing and says why, on stderr with exit 1.
    const again = await duet("approve", "approveroom", second);
    expect(again.code).toBe(1);
    expect(again.err).toMatch(/already decided/);
    expect(ran("echo cli-skipped")).toBe(false);
    expect((await duet("approve", "approveroom", "00000000-0000-4000-8000-000000000000")).err).toMatch(/no such approval|not found/i);
  });

  it("runs and skips proposed commands by the number `duet ask` listed them with", async () => {
    await duet("policy", "numberroom", "approve");
    const asked = await duet("ask", "numberroom", "SAY: Two. <run>echo by-number-one</run> <run>echo by-number-two</run>");
    expect(asked.out).toMatch(/\[1\] echo by-number-one[\s\S]*\[2\] echo by-number-two/);
    const second = await duet("approve", "numberroom", "2");
    expect(second).toMatchObject({ code: 0 });
    expect(second.out).toContain("cli:tester ran `echo by-number-two`");
    expect(ran("echo by-number-two")).toBe(true);
    const first = await duet("skip", "numberroom", "1");
    expect(first.out).toContain("cli:tester skipped `echo by-number-one`");
    expect(ran("echo by-number-one")).toBe(false);
    const none = await duet("approve", "numberroom", "3");
    expect(none).toMatchObject({ code: 1, err: "duet: there is no waiting command 3: the last answer in numberroom listed 2 (an id, as listed, works too)" });
  });

  it("schedules in a terminal's room speak the CLI's commands and say where their answers go", async () => {
    const none = await duet("schedules", "cli-sched");
    expect(none.out).toBe("No schedules in this room. Add one with `duet schedule cli-sched <when> <ask>`.");
    const set = await duet("schedule", "cli-sched", "every 2h", "SAY: disk ok");
    expect(set.out).toContain("its answer kept in the room's history (`duet history cli-sched`)");
    const listed = await duet("schedules", "cli-sched");
    expect(listed.out.split("\n")[0]).toBe("Schedules in this room (1), soonest first; remove one with `duet unschedule cli-sched <id>`:");
    const missing = await duet("unschedule", "cli-sched", "abc123");
    expect(missing.err).not.toContain("/duet");
    expect(`${set.out}${listed.out}${missing.err}`).not.toContain("/duet");
  });

  it("a token the Worker refuses is named as the CLI's, not a bot's", async () => {
    const { ctx, printed } = terminal();
    const wrong = { ...ctx, client: new WorkerClient({ baseUrl: stack.workerUrl, token: "not-the-token", retries: 0 }), tokenSource: "DUET_API_TOKEN" };
    const said = printed(await runAction("cli-token", { kind: "history" }, wrong));
    expect(said).toMatchObject({ code: 1, err: `The Worker at ${stack.workerUrl} refused the CLI's API token (from DUET_API_TOKEN): check DUET_API_TOKEN.` });
  });

  it("in `duet chat`, /approve and /skip act on the commands the last answer listed", async () => {
    const { out, err } = await chat("chatapprove", [
      "/policy approve",
      "/approve",
      "SAY: One. <run>echo chat-only-one</run>",
      "/approve 2",
      "/approve",
      "/approve",
      "SAY: Two. <run>echo chat-first</run> <run>echo chat-second</run>",
      "/skip",
      "/skip 2",
      "/approve 1",
    ]);
    expect(err.split("\n")).toEqual([
      "no command is waiting for approval here (the last answer proposed none, or all were decided)",
      "there is no waiting command 2: the last answer listed 1",
      "no command is waiting for approval here (the last answer proposed none, or all were decided)",
      "2 commands are waiting: say which, e.g. /approve 1",
    ]);
    expect(out).toContain("cli:tester ran `echo chat-only-one`");
    expect(out).toContain("cli:tester skipped `echo chat-second`");
    expect(out).toContain("cli:tester ran `echo chat-first`");
    expect(ran("echo chat-only-one") && ran("echo chat-first")).toBe(true);
    expect(ran("echo chat-second")).toBe(false);
  });
});
