import { describe, expect, it } from "vitest";
import { startedForTests } from "./helpers/lifecycle.ts";
import { startSandboxStack } from "./helpers/sandbox-stack.ts";
import type { Stack } from "./helpers/stack.ts";
import { filesUnder } from "./helpers/state-files.ts";

/**
 * Secrets at rest: after a turn whose command printed tokens (Slack, Discord, GitHub,
 * AWS, the Worker's own, that one also uppercased), and a question that held one,
 * no file of the Worker's state holds a token's bytes: the rooms' SQLite databases,
 * their write-ahead logs (where a row's earlier version lingers until a checkpoint)
 * and everything else wrangler keeps, read while the Worker runs and again after a
 * restart. Through the real Worker and the real bubblewrap executor.
 */

describe("tokens in a command's output or a question, at rest", () => {
  let stack: Stack;
  startedForTests(() => startSandboxStack(), (started) => ({ stack } = started));

  const discordId = Buffer.from("112233445566778899").toString("base64url");
  const tokens = () => [
    "xoxb-2048151234567-4096123456789-Q1w2E3r4T5y6U7i8O9p0AsDf",
    `${discordId}.GhT1xY.abcdefghijKLMNOPQRSTuvwxyz0123456789ab`,
    "ghp_Z9y8X7w6V5u4T3s2R1q0P9o8N7m6L5k4J3i2",
    "AKIAQ7RZT3XMPL4WKB2N",
    stack.token,
    stack.token.toUpperCase(),
  ];

  /** `path: token` for each file under the state directory that holds a token's bytes. */
  const found = () =>
    filesUnder(stack.persistDir).flatMap(({ path, bytes }) => tokens().filter((t) => bytes.includes(Buffer.from(t))).map((t) => `${path}: ${t}`));

  it("are in no state file, WAL included, while the Worker runs and after a restart", async () => {
    // Each printed from two halves: the command the model wrote (and the history keeps) never holds one whole.
    const prints = tokens()
      .map((t) => `printf '%s%s\\n' '${t.slice(0, 8)}' '${t.slice(8)}'`)
      .join("; ");
    const turn = await stack.client.message("cli-at-rest", { text: `SAY: Looking. <run>${prints}</run>`, userId: "tester" });
    expect(turn.runs[0]).toMatchObject({ exitCode: 0 });
    expect(turn.runs[0]!.stdout).toContain("[redacted]");
    for (const t of tokens()) expect(JSON.stringify(turn)).not.toContain(t);
    await stack.client.exec("cli-at-rest", { cmd: prints, userId: "tester" });
    await stack.client.message("cli-at-rest", { text: `SAY: ok, my slack token is ${tokens()[0]}`, userId: "tester" });

    // The room's writes are in its WAL now: the scan must have read one that is not empty.
    const wals = filesUnder(stack.persistDir).filter((f) => f.path.endsWith(".sqlite-wal") && f.bytes.length > 0);
    expect(wals.length).toBeGreaterThan(0);
    // The scan can see a token: the redacted output it stored is there in plain text.
    expect(filesUnder(stack.persistDir).some((f) => f.bytes.includes(Buffer.from("[redacted]")))).toBe(true);
    expect(found()).toEqual([]);

    await stack.restartWorker();
    expect((await stack.client.history("cli-at-rest")).messages.length).toBeGreaterThan(0);
    expect(found()).toEqual([]);
  });
});
