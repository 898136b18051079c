import { describe, expect, it } from "vitest";
import { describeAuditEntry, describePolicy, type Naming } from "./control.ts";

const name: Naming = { person: (id) => `@${id}`, command: (cmd) => `\`${cmd}\`` };
const at = Date.UTC(2026, 0, 2, 3, 4);

describe("the run policy in words", () => {
  it("says where a policy comes from: the room, its channel, or the default", () => {
    expect(describePolicy("approve", undefined, name, "channel")).toMatch(/^The run policy here is \*approve\*, from this thread's channel: each command/);
    expect(describePolicy("auto", undefined, name, "room")).toMatch(/^The run policy here is \*auto\* \(set here\): Duet runs/);
    expect(describePolicy("auto", undefined, name, "default")).toMatch(/^The run policy here is \*auto\* \(the default\): Duet runs/);
    expect(describePolicy("auto", undefined, name)).toMatch(/^The run policy here is \*auto\*: Duet runs/);
    expect(describePolicy("approve", "U1", name, "room")).toMatch(/^@U1 set the run policy to \*approve\*/);
  });
});

describe("an audit line", () => {
  it("tells an expired approval: the command, when it ran out, who it was proposed for, that it never ran", () => {
    const line = describeAuditEntry({ at, kind: "expired", cmd: "rm -rf data", requestedBy: "U1", expiresAt: at - 60_000 }, name);
    expect(line).toBe("2026-01-02 03:04 UTC · `rm -rf data` expired at 2026-01-02 03:03 UTC with nobody deciding, proposed for @U1; it never ran");
  });

  it("tells who stopped a command instead of its exit code", () => {
    const base = { at, kind: "approved" as const, cmd: "sleep 30", requestedBy: "U1", decidedBy: "U2", exitCode: null, durationMs: 812 };
    expect(describeAuditEntry({ ...base, stopped: true, stoppedBy: "U3" }, name)).toMatch(/run by @U2, proposed for @U1 \(stopped by @U3 after 812 ms\)$/);
    expect(describeAuditEntry({ ...base, stopped: true }, name)).toMatch(/\(stopped by someone after 812 ms\)$/);
    expect(describeAuditEntry(base, name)).toMatch(/\(outcome unknown, 812 ms\)$/);
  });

  it("tells a pull request merged or closed on GitHub, naming the GitHub login as text, never as a chat mention", () => {
    const base = { at, repo: "acme/widgets", branch: "duet/x-1a2b3c", url: "https://github.example/acme/widgets/pull/4" };
    expect(describeAuditEntry({ ...base, kind: "pr-merged", decidedBy: "octocat" }, name)).toBe("2026-01-02 03:04 UTC · octocat merged the pull request https://github.example/acme/widgets/pull/4 from `duet/x-1a2b3c` on GitHub");
    expect(describeAuditEntry({ ...base, kind: "pr-closed", decidedBy: "hubot" }, { ...name, label: (n) => `[${n}]` })).toBe(
      "2026-01-02 03:04 UTC · [hubot] closed the pull request https://github.example/acme/widgets/pull/4 from `duet/x-1a2b3c` without merging, on GitHub",
    );
  });
});
