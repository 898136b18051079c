import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { LocalExecutor } from "./local.ts";

const executorUrl = (env as unknown as { FAKE_EXECUTOR_URL: string }).FAKE_EXECUTOR_URL;

async function calls(): Promise<{ calls: { command: string }[]; killed: string[] }> {
  return (await fetch(`${executorUrl}/_calls`)).json();
}

/** Until the executor has received `cmd` (or the test times out). */
async function arrived(cmd: string): Promise<void> {
  while (!(await calls()).calls.some((c) => c.command === cmd)) await scheduler.wait(20);
}

describe("the local executor", () => {
  it("a stop hangs up on the executor, which kills the running command", async () => {
    const cmd = `sleep 30 # stop-${Date.now()}`;
    const stop = new AbortController();
    const run = new LocalExecutor(executorUrl).exec("cli-test-stop-room", cmd, 60_000, stop.signal);
    await arrived(cmd);
    const reason = new Error("stopped by U1");
    stop.abort(reason);
    await expect(run).rejects.toBe(reason);
    while (!(await calls()).killed.includes(cmd)) await scheduler.wait(20);
    expect((await calls()).killed).toContain(cmd);
  });
});
