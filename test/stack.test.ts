import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { WorkerClient } from "@duet/shared";
import { quickRetrySleep } from "./helpers/quick-retries.ts";
import { startStack, type Stack } from "./helpers/stack.ts";

describe("the real Worker under wrangler (the stack the bots' e2e tests use)", () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await startStack();
  });
  afterAll(async () => {
    await stack?.stop();
  });

  it("answers through the shared client, and keeps history across a Worker restart", async () => {
    const answer = await stack.client.message("cli-e2e-room", { text: "SAY: hi <run>echo from-sandbox</run>", userId: "u1" });
    expect(answer.reply).toContain("Output (echo from-sandbox):\nfrom-sandbox");
    expect(answer.runs[0]).toMatchObject({ exitCode: 0, stdout: "from-sandbox\n" });
    await stack.restartWorker();
    const { messages } = await stack.client.history("cli-e2e-room");
    expect(messages.map((m) => m.role)).toEqual(["user", "agent"]);
  });

  it("maps a Worker that is down to worker_unreachable", async () => {
    await stack.stopWorker();
    // The client's five retries, with their waits shortened.
    const client = new WorkerClient({ baseUrl: stack.workerUrl, token: stack.token, sleep: quickRetrySleep });
    await expect(client.message("cli-e2e-room", { text: "hello" })).rejects.toMatchObject({ code: "worker_unreachable", retryable: true });
    await stack.restartWorker();
    const { messages } = await stack.client.history("cli-e2e-room");
    expect(messages).toHaveLength(2);
  });
});
