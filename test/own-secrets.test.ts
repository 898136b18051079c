import { describe, expect, it } from "vitest";
import { startedForTests } from "./helpers/lifecycle.ts";
import { startSandboxStack } from "./helpers/sandbox-stack.ts";
import type { Stack } from "./helpers/stack.ts";

/**
 * The Worker's own token, printed by a command in a form a substring search misses
 * (split over two lines, base64-encoded), as the user sees the output: through the
 * real Worker and the real bubblewrap executor.
 */
describe("copies of the Worker's own token in a command's output", () => {
  let stack: Stack;
  startedForTests(() => startSandboxStack(), (started) => ({ stack } = started));

  // The command builds the copies from halves, so the command line itself never holds the token whole.
  const halves = () => [stack.token.slice(0, 16), stack.token.slice(16)];

  it("split over two lines, is redacted in exec output and in an answer", async () => {
    const [a, b] = halves();
    const cmd = `printf '%s\\n' ${a}; printf '%s\\n' ${b}; echo end`;
    const exec = await stack.client.exec("cli-own-split", { cmd });
    expect(exec.result.stdout).toBe("[redacted]\nend\n");

    const ask = await stack.client.message("cli-own-split", { text: `SAY: Printing. <run>${cmd}</run>`, userId: "tester" });
    expect(ask.runs[0].stdout).toBe("[redacted]\nend\n");
    expect(ask.reply).toContain(":\n[redacted]\nend");
  });

  it("base64-encoded, is redacted", async () => {
    const [a, b] = halves();
    const exec = await stack.client.exec("cli-own-b64", { cmd: `printf '%s%s' ${a} ${b} | base64 -w0; echo; echo "user:${a}${"$"}{X:-}${b}" | base64` });
    const lines = exec.result.stdout.trim().split("\n");
    expect(lines).toHaveLength(2);
    expect(lines[0]).toContain("[redacted]");
    expect(lines[1]).toContain("[redacted]");
    expect(exec.result.stdout).not.toContain(Buffer.from(stack.token).toString("base64").slice(4, 40));
  });
});

/**
 * The Worker's own token in spellings a substring search misses (uppercased,
 * a zero-width space between its characters), written by the model or typed
 * in a question: neither the answer nor the room's history holds it.
 */
describe("other spellings of the Worker's own token", () => {
  let stack: Stack;
  startedForTests(() => startSandboxStack(), (started) => ({ stack } = started));

  /** Whether `text` holds the token once case and zero-width spaces are set aside. */
  const holdsToken = (text: string) => text.replace(/\u200B/g, "").toLowerCase().includes(stack.token.toLowerCase());
  const spellings = () => [stack.token.toUpperCase(), [...stack.token].join("\u200B")];

  it("written by the model, reach neither the reply nor the history", async () => {
    const said = `The token is ${spellings()[0]} or, hidden, ${spellings()[1]} there.`;
    // SAY64: the question never holds the token; only the model's answer does.
    const ask = await stack.client.message("cli-own-spelled", { text: `SAY64: ${Buffer.from(said).toString("base64")}`, userId: "tester" });
    expect(ask.reply).toBe("The token is [redacted] or, hidden, [redacted] there.");
    const history = JSON.stringify((await stack.client.history("cli-own-spelled")).messages);
    expect(history).toContain("The token is [redacted]");
    expect(holdsToken(history)).toBe(false);
  });

  it("typed in a question, are redacted before the model reads it and before it is stored", async () => {
    // The fake model says back what it was asked: the reply is what the model read.
    const ask = await stack.client.message("cli-own-asked", { text: `SAY: You sent ${spellings()[1]} and ${spellings()[0]}.`, userId: "tester" });
    expect(ask.reply).toBe("You sent [redacted] and [redacted].");
    const history = JSON.stringify((await stack.client.history("cli-own-asked")).messages);
    expect(holdsToken(history)).toBe(false);
    expect(history).toContain("You sent [redacted] and [redacted].");
  });

  /** The token spelled as a command's output or a model might: each must leave no 20-character run of itself behind. */
  const encoded: Array<[string, (t: string) => string]> = [
    ["reversed", (t) => [...t].reverse().join("")],
    ["hex", (t) => Buffer.from(t).toString("hex")],
    ["URL-encoded", (t) => [...Buffer.from(t)].map((b) => `%${b.toString(16).toUpperCase()}`).join("")],
    ["separated by dashes", (t) => [...t].join("-")],
    ["with ANSI colours between characters", (t) => [...t].map((c) => `\u001b[32m${c}\u001b[0m`).join("")],
  ];
  it.each(encoded)("%s, written by the model, reaches neither the reply nor the history", async (name, spell) => {
    const copy = spell(stack.token);
    const room = `cli-own-${name.replace(/\W+/g, "-")}`;
    const ask = await stack.client.message(room, { text: `SAY64: ${Buffer.from(`it is ${copy} here`).toString("base64")}`, userId: "tester" });
    const history = JSON.stringify((await stack.client.history(room)).messages);
    const bare = (t: string) => t.replace(/\u001b\[[0-9;]*m|\\u001b\[[0-9;]*m|[\s-]+/g, "");
    const runs = Array.from({ length: bare(copy).length - 19 }, (_, i) => bare(copy).slice(i, i + 20));
    expect(ask.reply).toContain("[redacted]");
    for (const seen of [ask.reply, history]) expect(runs.filter((run) => bare(seen).includes(run))).toEqual([]);
  });

  it("a bare AWS secret key in a question is redacted before the model reads it", async () => {
    const secret = ["wJalrXUtnFEMI", "/K7MDENG/bPxRfiCYEXAMPLEKEY"].join("");
    const ask = await stack.client.message("cli-own-aws", { text: `SAY: my aws secret is ${secret}, why does it fail?`, userId: "tester" });
    expect(ask.reply).toBe("my aws secret is [redacted], why does it fail?");
    expect(JSON.stringify((await stack.client.history("cli-own-aws")).messages)).not.toContain(secret);
  });
});
