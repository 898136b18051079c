import { describe, expect, it } from "vitest";
import { runAction, type CliContext } from "../../scripts/cli/commands.ts";
import { parseArgs } from "../../scripts/cli/args.ts";
import { makeStyle } from "../../scripts/cli/render.ts";
import { startedForTests } from "../helpers/lifecycle.ts";
import { startStack, type Stack } from "../helpers/stack.ts";

/** `duet policy` and `duet audit` through the CLI's own code against a real Worker. */

let stack: Stack;
startedForTests(() => startStack(), (s) => (stack = s));

async function duet(...argv: string[]): Promise<{ code: number; out: string; err: string }> {
  const out: string[] = [];
  const err: string[] = [];
  const ctx: CliContext = {
    client: stack.client,
    style: makeStyle(false),
    secrets: [stack.token],
    userId: "cli:tester",
    baseUrl: stack.workerUrl,
    tokenSource: "the test",
    out: (t) => out.push(t),
    err: (t) => err.push(t),
  };
  const command = parseArgs(argv);
  if (command.kind === "help" || command.kind === "chat") throw new Error("not a room action");
  const { room, ...action } = command;
  const code = await runAction(room, action, ctx);
  return { code, out: out.join("\n"), err: err.join("\n") };
}

describe("duet policy and duet audit", () => {
  it("shows and sets the run policy; under approve an ask lists its commands and runs none", async () => {
    expect((await duet("policy", "cliroom")).out).toBe("The run policy here is auto: Duet runs the commands it proposes at once.");
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
    // A reset empties the audit and leaves one line saying who.
    expect(out.split("\n")).toEqual([
      "Audited events in this room, oldest first:",
      expect.stringMatching(/· cli:tester reset Duet$/),
      expect.stringMatching(/· cli:tester ran `echo after-reset` \(exit 0, \d+ ms\)$/),
    ]);
  });
});
