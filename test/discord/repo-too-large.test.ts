import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { startedForTests } from "../helpers/lifecycle.ts";
import type { PrHost } from "../helpers/pr-host.ts";
import type { Stack } from "../helpers/stack.ts";
import { workerApi } from "../helpers/worker-api.ts";
import { interactionAnswer, type DiscordHarness } from "./harness.ts";
import { startDiscordPrSetup } from "./pr-setup.ts";

/**
 * A repository too large for the room's workspace quota, through the real
 * Worker and the real executor (a 16 MiB workspace) against the fake GitHub
 * over `git http-backend`: the Worker's repo route answers 413 with one line
 * naming the quota, `/duet repo name:sync` in Discord says that same line,
 * nothing of it is kept in the workspace, and a repository that fits checks
 * out in that room after.
 */

const QUOTA = 16 * 1024 * 1024;
const TOO_LARGE = "acme/huge is too large for this room's workspace (16 MiB, SANDBOX_WORKSPACE_MAX_BYTES): its checkout did not fit, and nothing of it was kept";

let stack: Stack;
let h: DiscordHarness;
let host: PrHost;

startedForTests(
  async () => {
    const setup = await startDiscordPrSetup({}, { executor: { workspaceMaxBytes: QUOTA } });
    // About 16 MB of text that does not compress, against the 16 MiB workspace.
    const files: Record<string, string> = {};
    for (let i = 0; i < 12; i++) files[`blob${i}.txt`] = randomBytes(1024 * 1024).toString("base64");
    await setup.host.repos.create("acme/huge", [files]);
    setup.host.github.addRepo({ fullName: "acme/huge", installationId: 9 });
    return setup;
  },
  (s) => ({ stack, h, host } = s),
);

const api = workerApi(() => stack);

describe("a repository too large for the room's workspace", () => {
  it("the Worker's repo route: 413 with one line naming the quota, nothing kept; a repository that fits checks out after", async () => {
    const room = "cli-too-large";
    expect((await api("PUT", `/api/rooms/${room}/repo`, { repo: "acme/huge", userId: "U1" })).status).toBe(200);
    const sync = await api("POST", `/api/rooms/${room}/repo/sync`);
    expect(sync.status).toBe(413);
    expect(sync.body.error).toBe(TOO_LARGE);
    expect((await stack.client.exec(room, { cmd: "ls -A ~" })).result.stdout).toBe("");

    expect((await api("PUT", `/api/rooms/${room}/repo`, { repo: "acme/widgets", userId: "U1" })).status).toBe(200);
    expect((await api("POST", `/api/rooms/${room}/repo/sync`)).status).toBe(200);
    expect((await stack.client.exec(room, { cmd: "ls ~/repo" })).result.stdout).toContain("README.md");
  });

  it("Discord: /duet repo name:sync says the same one line in the channel, and the workspace is left empty", async () => {
    const ch = h.fake.addChannel(h.guildId, "too-large");
    const linked = h.fake.interaction(ch, { subcommand: "repo", options: { name: "acme/huge" } });
    expect((await interactionAnswer(h, linked)).text).toContain("linked `acme/huge`");
    const synced = h.fake.interaction(ch, { subcommand: "repo", options: { name: "sync" } });
    const { text } = await interactionAnswer(h, synced);
    expect(text).toContain(TOO_LARGE);
    expect(text.split("\n")).toHaveLength(1);
    expect(text).not.toMatch(/\bat \S+:\d+|Error:|stack/i);
    expect((await stack.client.exec(`discord-${h.guildId}-${ch}`, { cmd: "ls -A ~" })).result.stdout).toBe("");
    expect(host.github.pulls).toHaveLength(0);
  });
});
