import { describe, expect, it } from "vitest";
import { approvalCustomId, proposalPart, readApprovalCustomId, withDecision } from "./approval-buttons.ts";

const uuid = (i: number) => `00000000-0000-4000-8000-${String(i).padStart(12, "0")}`;
const pending = (n: number) => Array.from({ length: n }, (_, i) => ({ id: uuid(i + 1), cmd: `echo ${i + 1}`, expiresAt: 0 }));

describe("proposal buttons", () => {
  it("gives each command Run and Skip within Discord's limits, and says when some have none", () => {
    for (const n of [1, 5, 6, 10, 20]) {
      const { content, components } = proposalPart(pending(n));
      expect(components.length).toBeLessThanOrEqual(5);
      for (const row of components) {
        expect(row.components.length).toBeLessThanOrEqual(5);
        for (const b of row.components) expect(b.custom_id.length).toBeLessThanOrEqual(100);
      }
      const ids = components.flatMap((r) => r.components.map((b) => b.custom_id));
      expect(new Set(ids).size).toBe(ids.length);
      expect(ids.length).toBe(2 * Math.min(n, 10));
      expect(content.includes("have no buttons")).toBe(n > 10);
    }
  });

  it("reads back only the custom ids it makes", () => {
    const b = { decision: "skip" as const, n: 3, id: uuid(3) };
    expect(readApprovalCustomId(approvalCustomId(b))).toEqual(b);
    for (const junk of ["duet-approval:run:1:../x", "duet-approval:nuke:1:abc", `duet-approval:run:1:${"a".repeat(65)}`, "duet-approval:run::abc", "duet-stop:slack-T-C", ""]) {
      expect(readApprovalCustomId(junk)).toBeNull();
    }
  });

  it("shows a decision in its line, drops its buttons and keeps the others", () => {
    const part = proposalPart(pending(2));
    const decided = withDecision(part.content, part.components, 1, { id: uuid(1), cmd: "echo 1", expiresAt: 0, decision: "run", decidedBy: "42", decidedAt: 1 });
    expect(decided.content).toContain("✅ **1.** <@42> ran `echo 1`");
    expect(decided.content).toContain("⏳ **2.** `echo 2`");
    expect(decided.components.flatMap((r) => r.components.map((b) => b.label))).toEqual(["Run 2", "Skip 2"]);
  });
});
