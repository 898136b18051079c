import { describe, expect, it } from "vitest";
import { approvalValue, proposalBlocks, readApprovalValue, withDecision } from "./approval-blocks.ts";

const room = "slack-T1-C1";
const pending = [
  { id: "a-1", cmd: "echo 1", expiresAt: 0 },
  { id: "a-2", cmd: "rm -rf build && echo `date` <b>", expiresAt: 0 },
];

describe("proposal blocks", () => {
  it("names the room and the approval in each button's value", () => {
    const blocks = proposalBlocks(pending, room);
    const actions = blocks.filter((b) => b.type === "actions") as { block_id: string; elements: { action_id: string; value: string }[] }[];
    expect(actions.map((a) => a.block_id)).toEqual(["duet-approval-a-1", "duet-approval-a-2"]);
    expect(actions[1].elements.map((e) => [e.action_id, readApprovalValue(e.value)])).toEqual([
      ["duet_approval_run", { room, id: "a-2" }],
      ["duet_approval_skip", { room, id: "a-2" }],
    ]);
    // Slack's control characters in a command are escaped, and backticks cannot end its code span.
    expect(JSON.stringify(blocks)).toContain("rm -rf build &amp;&amp; echo 'date' &lt;b&gt;");
  });

  it("reads back only the values it makes", () => {
    expect(readApprovalValue(approvalValue({ room, id: "a-1" }))).toEqual({ room, id: "a-1" });
    for (const junk of [undefined, "", "a-1", "null", "[]", '{"room":"r"}', '{"room":1,"id":"a"}', '{"room":"","id":"a"}']) expect(readApprovalValue(junk)).toBeNull();
  });

  it("replaces only the decided command's buttons with who decided", () => {
    const blocks = proposalBlocks(pending, room);
    const after = withDecision(blocks, { id: "a-1", cmd: "echo 1", expiresAt: 0, decision: "skip", decidedBy: "U2", decidedAt: 1 });
    expect(after.filter((b) => b.type === "actions").map((b) => b.block_id)).toEqual(["duet-approval-a-2"]);
    expect(JSON.stringify(after)).toContain(":next_track_button: <@U2> skipped `echo 1`");
    expect(after).toHaveLength(blocks.length);
  });
});
