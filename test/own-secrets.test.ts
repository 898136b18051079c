import { describe, expect, it } from "vitest";
import { startedForTests } from "./helpers/lifecycle.ts";
import { startSandboxStack } from "./helpers/sandbox-stack.ts";
import type { Stack } from "./helpers/stack.ts";

/**
 * The Worker's own token, printed by a command in a form a substring search misses
 * (split over two lines, base64-encoded), as the user sees the output: through the
 * real Worker and the real bubblewrap executor.
 */
describe("copies of the Worker's own token in a command's output", () => {
  let stack: Stack;
  startedForTests(() => startSandboxStack(), (started) => ({ stack } = started));

  // The command builds the copies from halves, so the command line itself never holds the token whole.
  const halves = () => [stack.token.slice(0, 16), stack.token.slice(16)];

  it("split over two lines, is redacted in exec output and in an answer", async () => {
    const [a, b] = halves();
    const cmd = `printf '%s\\n' ${a}; printf '%s\\n' ${b}; echo end`;
    const exec = await stack.client.exec("cli-own-split", { cmd });
    expect(exec.result.stdout).toBe("[redacted]\nend\n");

    const ask = await stack.client.message("cli-own-split", { text: `SAY: Printing. <run>${cmd}</run>`, userId: "tester" });
    expect(ask.runs[0].stdout).toBe("[redacted]\nend\n");
    expect(ask.reply).toContain(":\n[redacted]\nend");
  });

  it("base64-encoded, is redacted", async () => {
    const [a, b] = halves();
    const exec = await stack.client.exec("cli-own-b64", { cmd: `printf '%s%s' ${a} ${b} | base64 -w0; echo; echo "user:${a}${"$"}{X:-}${b}" | base64` });
    const lines = exec.result.stdout.trim().split("\n");
    expect(lines).toHaveLength(2);
    expect(lines[0]).toContain("[redacted]");
    expect(lines[1]).toContain("[redacted]");
    expect(exec.result.stdout).not.toContain(Buffer.from(stack.token).toString("base64").slice(4, 40));
  });
});
