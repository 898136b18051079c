import { describe, expect, it } from "vitest";
import type { PrProposal } from "@duet/shared";
import { prProposalPart, withPrDecision } from "./pr-buttons.ts";

const owner = "o".repeat(100);
const name = "n".repeat(100);
const proposal: PrProposal = {
  id: "0a1b2c3d",
  repo: `${owner}/${name}`,
  branch: `duet/${"b".repeat(40)}-abcdef`,
  base: "main",
  baseSha: "f".repeat(40),
  title: "t".repeat(200),
  diffstat: "300 files changed, 9000 insertions(+)",
  diffHead: Array.from({ length: 400 }, (_, i) => `+line ${i}`).join("\n"),
  files: [],
  requestedBy: "111111111111111111",
  at: 0,
};
const opened = { url: `https://github.example/${owner}/${name}/pull/123456`, number: 123456, branch: proposal.branch, by: "222222222222222222" };

describe("a pull request proposal once opened", () => {
  it("keeps the pull request's link whole within Discord's 2,000 characters when the diff filled the proposal", () => {
    const { content } = prProposalPart(proposal);
    expect(content.length).toBeGreaterThan(1900);
    const decided = withPrDecision(content, { opened, by: opened.by });
    expect(decided.content.length).toBeLessThanOrEqual(2000);
    expect(decided.content).toMatch(new RegExp(`\n✅ <@${opened.by}> opened pull request #123456 from \`${proposal.branch}\`: ${opened.url}$`));
    // What proposed it still heads the message; the diff gave way.
    expect(decided.content.startsWith(`🔀 <@${proposal.requestedBy}> proposes a pull request`)).toBe(true);
    expect(decided.components).toEqual([]);
  });

  it("keeps the diff when the link fits beside it", () => {
    const small = { ...proposal, repo: "acme/widgets", diffHead: "+one\n+two" };
    const decided = withPrDecision(prProposalPart(small).content, { opened: { ...opened, url: "https://github.example/acme/widgets/pull/1" }, by: opened.by });
    expect(decided.content).toContain("+one\n+two");
    expect(decided.content).not.toContain("Open pushes");
    expect(decided.content).toMatch(/opened pull request #123456 .*: https:\/\/github\.example\/acme\/widgets\/pull\/1$/);
  });
});
