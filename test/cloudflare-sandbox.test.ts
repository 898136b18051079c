import { existsSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { startedForTests } from "./helpers/lifecycle.ts";
import { startSandboxStack } from "./helpers/sandbox-stack.ts";
import type { Stack } from "./helpers/stack.ts";
import { REPO_ROOT } from "./helpers/worker.ts";

/**
 * SANDBOX_PROVIDER=cloudflare: the Worker's CloudflareExecutor drives the real
 * @cloudflare/sandbox SDK (getSandbox, the Sandbox Durable Object, its sessions
 * and exec), whose container requests reach the bubblewrap executor instead of a
 * container (see worker/test/sandbox-stand-in/).
 */
describe("the cloudflare sandbox provider through the @cloudflare/sandbox SDK", () => {
  let stack: Stack;
  let root: string;
  startedForTests(
    () =>
      startSandboxStack({
        config: join(REPO_ROOT, "worker", "test", "sandbox-stand-in", "wrangler.toml"),
        wire: ({ url, token }) => ({ SANDBOX_PROVIDER: "cloudflare", CONTAINER_STAND_IN_URL: url, SANDBOX_TOKEN: token, COMMAND_TIMEOUT_MS: "3000" }),
      }),
    (started) => ({ stack, root } = started),
  );

  it("runs the model's commands in the room's sandbox and replies with their output", async () => {
    const res = await stack.client.message("cf-sdk-demo", { text: "SAY: Looking. <run>echo from-sdk | tee note.txt</run> <run>ls /nope</run>" });
    expect(res.runs).toMatchObject([
      { cmd: "echo from-sdk | tee note.txt", exitCode: 0, stdout: "from-sdk\n", stderr: "" },
      { cmd: "ls /nope", exitCode: 2, stdout: "", stderr: expect.stringContaining("No such file or directory") },
    ]);
    expect(res.reply).toContain("Output (echo from-sdk | tee note.txt):\nfrom-sdk");
    const again = await stack.client.exec("cf-sdk-demo", { cmd: "cat note.txt" });
    expect(again.result).toMatchObject({ exitCode: 0, stdout: "from-sdk\n", success: true });
  });

  it("gives rooms whose names are no DNS label (a Discord thread, upper case) their own sandbox", async () => {
    const thread = "discord-123456789012345678-123456789012345678-223456789012345678";
    const upper = "slack-T0ABCDEF1-C0ABCDEF1";
    await stack.client.exec(thread, { cmd: "echo thread > who.txt" });
    await stack.client.exec(upper, { cmd: "echo upper > who.txt" });
    expect((await stack.client.exec(thread, { cmd: "cat who.txt" })).result.stdout).toBe("thread\n");
    expect((await stack.client.exec(upper, { cmd: "cat who.txt" })).result.stdout).toBe("upper\n");
    expect((await stack.client.exec(upper.toLowerCase(), { cmd: "cat who.txt" })).result.exitCode).toBe(1);
  });

  it("keeps each room's files to itself", async () => {
    await stack.client.exec("cf-sdk-a", { cmd: "echo mine > a.txt" });
    const other = await stack.client.exec("cf-sdk-b", { cmd: "cat a.txt" });
    expect(other.result.exitCode).toBe(1);
    expect(other.result.stderr).toContain("No such file");
  });

  it("stops a command past COMMAND_TIMEOUT_MS and says so", async () => {
    const res = await stack.client.message("cf-sdk-slow", { text: "SAY: waiting <run>sleep 20; echo never</run> <run>echo next</run>" });
    expect(res.runs[0]).toMatchObject({ exitCode: 124, stdout: "", stderr: expect.stringContaining("timed out after 3000 ms") });
    expect(res.reply).toContain("timed out after 3000 ms");
    expect(res.runs[1]).toMatchObject({ exitCode: 0, stdout: "next\n" });
  });

  it("caps a flood of output and marks it truncated", async () => {
    const res = await stack.client.exec("cf-sdk-flood", { cmd: "head -c 3000000 /dev/zero | tr '\\0' x" });
    expect(res.result).toMatchObject({ exitCode: 0, truncated: true });
    expect(res.result.stdout).toBe("x".repeat(64 * 1024));
  });

  it("DELETE destroys the room's sandbox: its files are gone", async () => {
    await stack.client.exec("cf-sdk-gone", { cmd: "echo old > old.txt" });
    const workspace = join(root, "sessions", "sandbox-sandbox-cf-sdk-gone");
    expect(existsSync(workspace)).toBe(true);
    expect(await stack.client.cleanup("cf-sdk-gone")).toMatchObject({ cleaned: true, roomId: "cf-sdk-gone" });
    expect(existsSync(workspace)).toBe(false);
    const after = await stack.client.exec("cf-sdk-gone", { cmd: "ls" });
    expect(after.result).toMatchObject({ exitCode: 0, stdout: "" });
  });
});
