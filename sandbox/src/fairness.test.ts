import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { startTestExecutor, waitForFile, type TestExecutor } from "./test-support.ts";

// The real executor with its default slots: one person's rooms cannot hold them all,
// whether the person waiting is in the same workspace or another.

let ex: TestExecutor;
beforeAll(async () => {
  ex = await startTestExecutor();
});
afterAll(async () => {
  await ex?.stop();
});

const sessionDir = (id: string) => join(ex.root, "sessions", id);

describe("sharing the executor between rooms", () => {
  test.each([
    ["another person in the same workspace", "sandbox-slack-T1-C5", "slack-T1:UANN"],
    ["a room of another workspace", "sandbox-discord-G2-C1", "discord-G2:U2"],
  ])("one person's four rooms holding long commands do not keep %s waiting", async (_who, victimRoom, victimPerson) => {
    const holders = ["C1", "C2", "C3", "C4"].map((c) => `sandbox-slack-T1-${c}${victimRoom.slice(-2)}`);
    // Each holds its slot until the test writes `release` into its workspace.
    const settled = new Set<string>();
    const held = holders.map((id) =>
      ex.exec(id, "touch started; until [ -e release ]; do sleep 0.05; done; echo released", 120_000, "slack-T1:UMAL").finally(() => settled.add(id)),
    );
    for (const id of holders) await waitForFile(sessionDir(id), "started");

    const victim = await ex.exec(victimRoom, "echo here", undefined, victimPerson);
    expect(victim).toMatchObject({ exitCode: 0, stdout: "here\n" });
    // The barrier: all four were still running when the echo answered.
    expect([...settled]).toEqual([]);

    for (const id of holders) writeFileSync(join(sessionDir(id), "release"), "");
    for (const r of await Promise.all(held)) expect(r).toMatchObject({ exitCode: 0, stdout: "released\n" });
  });
});
