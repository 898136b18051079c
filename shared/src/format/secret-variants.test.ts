import { describe, expect, test } from "vitest";
import { redactSecrets, REDACTED } from "./redact.ts";

// The Worker's own secrets are known exactly, so their copies are caught in the two
// forms a plain search misses: split over lines, and base64.

const TOKEN = "3f9c1e7a5b2d4c6e8f0a1b3c5d7e9f1a2b4c6d8e0f1a3b5c";
const b64 = (s: string) => Buffer.from(s).toString("base64");
const redact = (text: string) => redactSecrets(text, [TOKEN]);

describe("copies of a known secret", () => {
  test.each([
    ["split over two lines", `${TOKEN.slice(0, 20)}\n${TOKEN.slice(20)}`],
    ["split with CRLF and indentation", `${TOKEN.slice(0, 7)}\r\n    ${TOKEN.slice(7)}`],
    ["folded over several lines", TOKEN.match(/.{1,10}/g)!.join("\n")],
    ["base64 of the value (echo -n $T | base64)", b64(TOKEN)],
    ["base64 of the value and a newline (echo $T | base64)", b64(`${TOKEN}\n`)],
    ["base64 inside longer base64 (a basic-auth header)", `Basic ${b64(`duet:${TOKEN}`)}`],
    ["base64 at the other offset", b64(`ab${TOKEN}xyz`)],
    ["URL-safe base64", b64(`?>${TOKEN}`).replace(/\+/g, "-").replace(/\//g, "_")],
    ["base64 wrapped at 76 columns", b64(`${TOKEN}${TOKEN}`).match(/.{1,76}/g)!.join("\n")],
  ])("%s is redacted", (_, copy) => {
    const out = redact(`before\n${copy}\nafter`);
    expect(out).toContain(REDACTED);
    expect(out.startsWith("before\n")).toBe(true);
    expect(out.endsWith("\nafter")).toBe(true);
    // No 20-character run of the copy is left to rebuild it from.
    const left = out.replace(/\s+/g, "");
    const compact = copy.replace(/\s+/g, "");
    const runs = Array.from({ length: compact.length - 19 }, (_, i) => compact.slice(i, i + 20));
    expect(runs.filter((run) => left.includes(run))).toEqual([]);
  });

  test("text that only resembles it stays", () => {
    const text = `${TOKEN.slice(0, 20)}\nsomething else\n${b64("an unrelated value of some length")}`;
    expect(redact(text)).toBe(text);
  });

  test("without known secrets nothing changes", () => {
    const text = `${TOKEN.slice(0, 20)}\n${TOKEN.slice(20)}`;
    expect(redactSecrets(text)).toBe(text);
  });

  // No catastrophic backtracking: the test's own time limit is the bound, no clock here.
  test("10 MB of base64 and hex with three known secrets is redacted", () => {
    const secrets = [TOKEN, "sk-" + "x".repeat(40), "another-secret-value-123456"];
    const big = (b64("lorem ipsum dolor sit amet ".repeat(40)) + "\n" + "0123456789abcdef".repeat(8) + "\n").repeat(6000);
    const out = redactSecrets(big + b64(TOKEN), secrets);
    expect(out.endsWith(REDACTED)).toBe(true);
  });
});
