import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type FakeSlack, startFakeSlack } from "../fakes/slack/index.ts";

/**
 * The Slack bot as `pnpm dev:slack` starts it, failing to start: whatever the
 * cause, what its operator reads is one line naming it, as the Discord bot's.
 */

const MAIN = fileURLToPath(new URL("../../bots/slack/src/main.ts", import.meta.url));
/** A port nothing listens on: Slack, or the Worker, is unreachable there. */
const NOWHERE = "http://127.0.0.1:9";

/** Runs the bot to its exit; its exit code and everything it wrote, stdout and stderr together. */
function runBot(env: Record<string, string>): Promise<{ code: number | null; lines: string[] }> {
  // Only what the bot needs: a developer's own SLACK_* variables must not leak in.
  const child = spawn(process.execPath, ["--import", "tsx", MAIN], {
    env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "/tmp", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stdout!.on("data", (d) => (output += d));
  child.stderr!.on("data", (d) => (output += d));
  return new Promise((resolve) => child.on("close", (code) => resolve({ code, lines: output.trim().split("\n") })));
}

let slack: FakeSlack;
beforeAll(async () => {
  slack = await startFakeSlack();
});
afterAll(() => slack.close());

const base = { SLACK_SIGNING_SECRET: "secret", SLACK_PORT: "0", DUET_API_TOKEN: "token", DUET_WORKER_URL: NOWHERE };

describe("the Slack bot that cannot start", () => {
  it("says Slack is unreachable in one line, the Worker's unknown token not said first", async () => {
    const { code, lines } = await runBot({ ...base, SLACK_BOT_TOKEN: "xoxb-any", SLACK_API_URL: `${NOWHERE}/api/` });
    expect(code).toBe(1);
    expect(lines).toEqual([`[slack] could not start: Cannot reach Slack's Web API at ${NOWHERE}/api/ (slack_webapi_request_error)`]);
  });

  it("says Slack refused the token in one line", async () => {
    slack.refuse("auth.test", "invalid_auth");
    try {
      const { code, lines } = await runBot({ ...base, SLACK_BOT_TOKEN: "xoxb-wrong", SLACK_API_URL: slack.apiUrl });
      expect(code).toBe(1);
      expect(lines).toEqual(["[slack] could not start: Slack did not accept SLACK_BOT_TOKEN (invalid_auth)"]);
    } finally {
      slack.refuse("auth.test", null);
    }
  });

  it("says which setting is missing in one line", async () => {
    const { code, lines } = await runBot({ ...base, SLACK_API_URL: slack.apiUrl });
    expect(code).toBe(1);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^\[slack\] could not start: .*SLACK_BOT_TOKEN/);
  });
});
