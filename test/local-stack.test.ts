import { describe, expect, it } from "vitest";
import { startedForTests } from "./helpers/lifecycle.ts";
import { startSandboxStack } from "./helpers/sandbox-stack.ts";
import type { Stack } from "./helpers/stack.ts";

/**
 * The local stack as `pnpm dev` runs it: the real Worker under workerd, the real
 * bubblewrap executor, and the fake model asking for commands.
 */
describe("Worker + real local sandbox", () => {
  let stack: Stack;
  startedForTests(startSandboxStack, (started) => ({ stack } = started));

  it("runs the model's command in the sandbox and replies with its real output", async () => {
    const res = await stack.client.message("cli-local-demo", {
      text: "SAY: Let me look. <run>echo real-output | tee note.txt; uname -s</run>",
      userId: "tester",
    });
    expect(res.reply).toMatch(/^Let me look\./);
    expect(res.reply).toContain("Output (echo real-output | tee note.txt; uname -s):\nreal-output\nLinux");
    expect(res.runs).toHaveLength(1);
    expect(res.runs[0]).toMatchObject({ exitCode: 0, stdout: "real-output\nLinux\n", stderr: "" });

    // The room's sandbox keeps its files: the next command sees what the first wrote.
    const next = await stack.client.message("cli-local-demo", { text: "SAY: Reading it back. <run>cat note.txt</run>" });
    expect(next.runs[0]).toMatchObject({ exitCode: 0, stdout: "real-output\n" });
    const direct = await stack.client.exec("cli-local-demo", { cmd: "ls" });
    expect(direct.result.stdout).toBe("note.txt\n");
  });

  it("keeps each room's files to itself", async () => {
    await stack.client.exec("cli-local-a", { cmd: "echo mine > a.txt" });
    const other = await stack.client.exec("cli-local-b", { cmd: "cat a.txt" });
    expect(other.result.exitCode).not.toBe(0);
    expect(other.result.stderr).toContain("No such file");
  });

  it("runs commands without network access, so a room cannot reach the Worker", async () => {
    const res = await stack.client.exec("cli-local-net", {
      // `command -v` first: without curl the answer would say nothing about the network.
      cmd: `command -v curl >/dev/null && { curl -s --max-time 3 ${stack.workerUrl}/health && echo REACHED || echo unreachable; }`,
    });
    expect(res.result.stdout).toBe("unreachable\n");
  });
});
