import { describe, expect, test } from "vitest";
import { createHash } from "node:crypto";
import { redactSecrets, REDACTED } from "./redact.ts";

// The Worker's own secrets are known exactly, so their copies are caught however they
// are spelled: split, folded in case, interleaved with invisible characters or escapes,
// and encoded (base64, base32, hex, reversed).

const TOKEN = "3f9c1e7a5b2d4c6e8f0a1b3c5d7e9f1a2b4c6d8e0f1a3b5c";
const b64 = (s: string) => Buffer.from(s).toString("base64");
const redact = (text: string) => redactSecrets(text, [TOKEN]);

/** RFC 4648 base32, as coreutils' `base32` writes it. */
function base32(s: string): string {
  const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";
  const bits = [...Buffer.from(s)].map((b) => b.toString(2).padStart(8, "0")).join("");
  const out = (bits.match(/.{1,5}/g) ?? []).map((g) => alphabet[parseInt(g.padEnd(5, "0"), 2)]).join("");
  return out + "=".repeat((8 - (out.length % 8)) % 8);
}

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
    ["uppercased", TOKEN.toUpperCase()],
    ["a zero-width space between characters", [...TOKEN].join("\u200B")],
    ["zero-width joiners, uppercased", [...TOKEN.toUpperCase()].join("\u200D")],
    ["reversed", [...TOKEN].reverse().join("")],
    ["hex (xxd -p)", Buffer.from(TOKEN).toString("hex")],
    ["hex, uppercased, a byte at a time (od)", Buffer.from(TOKEN).toString("hex").toUpperCase().match(/../g)!.join(" ")],
    ["separated by spaces", [...TOKEN].join(" ")],
    ["separated by dashes", [...TOKEN].join("-")],
    ["an ANSI colour code around each character", [...TOKEN].map((c) => `\u001b[3${c.charCodeAt(0) % 8}m${c}\u001b[0m`).join("")],
    ["URL-encoded, every character", [...Buffer.from(TOKEN)].map((b) => `%${b.toString(16).toUpperCase()}`).join("")],
    ["\\x escapes", [...Buffer.from(TOKEN)].map((b) => `\\x${b.toString(16)}`).join("")],
    ["base32 (base32 $T)", base32(TOKEN)],
    ["base32 at another offset, wrapped", base32(`xy${TOKEN}`).match(/.{1,20}/g)!.join("\n")],
  ])("%s is redacted", (_, copy) => {
    const out = redact(`before\n${copy}\nafter`);
    expect(out).toContain(REDACTED);
    expect(out.startsWith("before\n")).toBe(true);
    expect(out.endsWith("\nafter")).toBe(true);
    // No 20-character run of the copy is left to rebuild it from (blanks, escapes and invisible characters aside).
    const bare = (t: string) => t.replace(/\u001b\[[0-9;]*m|[\s\u200B\u200D-]+/g, "");
    const left = bare(out);
    const compact = bare(copy);
    const runs = Array.from({ length: compact.length - 19 }, (_, i) => compact.slice(i, i + 20));
    expect(runs.filter((run) => left.includes(run))).toEqual([]);
  });

  test("text that only resembles it stays", () => {
    const text = `${TOKEN.slice(0, 20)}\nsomething else\n${b64("an unrelated value of some length")}`;
    expect(redact(text)).toBe(text);
  });

  test("prose, code and hex hashes of other data stay as they are", () => {
    const text = [
      "The build failed because the test expected 3 files and found 4. Re-run it with --verbose.",
      "sha256  9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08  report.csv",
      `commit ${createHash("sha1").update("unrelated").digest("hex")} (HEAD -> main)`,
      createHash("sha512").update(TOKEN.slice(0, 12)).digest("hex").toUpperCase(),
      "const url = `https://example.com/a%20b?x=${encodeURIComponent(q)}`; // \x1b[31m red",
      "3f9c1e7a is a short id, and so is 5b2d-4c6e",
    ].join("\n");
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
