import { describe, expect, it } from "vitest";
import type { MessageResponse, RunResult } from "@duet/shared";
import { asV2, CONTAINER_CHILDREN_MAX, renderAnswerV2, V2_COMPONENTS_MAX, V2_TEXT_MAX } from "./render-v2.ts";
import { renderMessage, type Outgoing } from "./render.ts";
import type { ContainerJson } from "./components-json.ts";

const run = (over: Partial<RunResult> = {}): RunResult => ({ cmd: "ls", exitCode: 0, stdout: "a\nb\n", stderr: "", truncated: false, durationMs: 12, ...over });
const answer = (reply: string, runs: RunResult[] = [], extra: Partial<MessageResponse> = {}): MessageResponse => ({ reply, messages: [], runs, ...extra });

const containerOf = (msg: Outgoing) => msg.components?.[0] as ContainerJson;
const count = (cs: readonly unknown[]): number => cs.reduce<number>((n, c) => n + 1 + count((c as { components?: unknown[] }).components ?? []), 0);
const texts = (msg: Outgoing) => containerOf(msg).components.flatMap((c) => (c.type === 10 ? [c.content] : []));
const textLength = (msg: Outgoing) => texts(msg).reduce((n, t) => n + t.length, 0);

/** Every message within Discord's V2 limits: one container, 10 children, 40 components, 4,000 characters, no content. */
function expectWithinLimits(out: Outgoing[]) {
  for (const msg of out.filter((m) => m.v2)) {
    expect(msg.content).toBe("");
    expect(msg.components).toHaveLength(1);
    expect(containerOf(msg).type).toBe(17);
    expect(containerOf(msg).components.length).toBeLessThanOrEqual(CONTAINER_CHILDREN_MAX);
    expect(count(msg.components ?? [])).toBeLessThanOrEqual(V2_COMPONENTS_MAX);
    expect(textLength(msg)).toBeLessThanOrEqual(V2_TEXT_MAX);
  }
}

describe("renderAnswerV2", () => {
  it("lays an answer out as one container: the text, a separator, a display per command with the classic words", () => {
    const res = answer("Listing.\n\nOutput (ls):\na\nb", [run(), run({ cmd: "make", exitCode: 2, stdout: "", stderr: "boom\n" })]);
    const [msg, ...rest] = renderAnswerV2(res);
    expect(rest).toEqual([]);
    expect(msg.v2).toBe(true);
    expect(containerOf(msg).components.map((c) => c.type)).toEqual([10, 14, 10, 10]);
    // The same words as the classic message, in parts.
    expect(texts(msg).join("\n\n")).toBe(renderMessage(res)[0].content);
  });

  it("shows a proposal's Run and Skip rows inside the container, after its lines", () => {
    const pending = Array.from({ length: 10 }, (_, i) => ({ id: `a${i}`, cmd: `echo ${i}`, expiresAt: 0 }));
    const out = renderAnswerV2(answer("Proposing.", [], { pending }));
    expect(out).toHaveLength(1);
    const children = containerOf(out[0]).components;
    expect(children.filter((c) => c.type === 1)).toHaveLength(5);
    expect(children.at(-1)?.type).toBe(1);
    expect(texts(out[0]).join("\n")).toContain("**10.** `echo 9`");
    expectWithinLimits(out);
  });

  it("keeps a long answer within the limits: more V2 messages, code blocks whole, long output as an attached file", () => {
    const script = `\`\`\`bash\n${Array.from({ length: 400 }, (_, i) => `echo "step ${i} of the long build script"`).join("\n")}\n\`\`\``;
    const big = Array.from({ length: 3000 }, (_, i) => `line ${i}`).join("\n");
    const runs = Array.from({ length: 12 }, (_, i) => run({ cmd: `gen ${i}`, stdout: i % 4 === 0 ? big : "ok\n" }));
    const out = renderAnswerV2(answer(`Here:\n${script}`, runs, { stopped: true }));
    expect(out.length).toBeGreaterThan(3);
    expectWithinLimits(out);
    for (const msg of out) for (const t of texts(msg)) expect((t.match(/```/g) ?? []).length % 2).toBe(0);
    // The files ride in the last containers as file components naming them.
    const files = out.flatMap((m) => m.files.map((f) => f.name));
    expect(files).toEqual(["output-1.txt", "output-5.txt", "output-9.txt"]);
    const shown = out.flatMap((m) => containerOf(m).components.flatMap((c) => (c.type === 13 ? [c.file.url] : [])));
    expect(shown).toEqual(files.map((f) => `attachment://${f}`));
    expect(texts(out.at(-1)!).join("\n")).toContain("Stopped before it finished");
  });

  it("turns another reply's message into a container when it ends a live V2 answer", () => {
    const msg = asV2({ content: "⚠️ The model failed.", files: [] });
    expect(msg.v2).toBe(true);
    expect(texts(msg)).toEqual(["⚠️ The model failed."]);
  });
});
