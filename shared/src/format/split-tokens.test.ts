import { describe, expect, it } from "vitest";
import { REDACTED, redactSecrets } from "./redact.ts";
import { openShapeAt } from "./split-tokens.ts";

// Fixtures are assembled from pieces so that secret scanners do not mistake these fake values for leaked ones.
const j = (...parts: string[]) => parts.join("");
const b64url = (s: string) => btoa(s).replace(/=+$/, "").replace(/\+/g, "-").replace(/\//g, "_");

const SLACK_BOT = j("xoxb-", "1234567890", "-1234567890123-", "AbCdEfGhIjKlMnOpQrStUvWx");
const GITHUB = j("ghp_", "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8");
const GITHUB_PAT = j("github_pat_", "11ABCDEFG0123456789_", "abcdefghijklmnopqrstuvwxyz0123456789ABCDEFGHIJKLMNOPQRSTU");
const AWS_ID = j("AKIA", "IOSFODNN7EXAMPLE");
const AWS_SECRET = j("wJalrXUtnFEMI", "/K7MDENG/bPxRfiCYEXAMPLEKEY");
const DISCORD = j(b64url("123456789012345678"), ".GaBcDe.", "Zx9_Qw-Er7TyUiOpAsDfGhJkLzXcVbNm12");
const OPENAI = j("sk-proj-", "AbCdEf0123456789_-GhIjKlMnOpQr");

/** `value` broken over lines at `width` columns, as `fold -w` writes it. */
const fold = (value: string, width: number) => value.match(new RegExp(`.{1,${width}}`, "g"))!.join("\n");

describe("tokens of well-known shapes broken over lines", () => {
  it.each([
    ["a Slack bot token", SLACK_BOT, 8],
    ["a Slack bot token broken inside its prefix", SLACK_BOT, 2],
    ["a GitHub token", GITHUB, 12],
    ["a GitHub fine-grained token", GITHUB_PAT, 30],
    ["an AWS access key id", AWS_ID, 7],
    ["a Discord bot token", DISCORD, 20],
    ["an OpenAI key", OPENAI, 10],
  ])("%s is hidden whole", (_, token, width) => {
    const out = redactSecrets(`Found:\n${fold(token, width)}\nDone.`);
    expect(out).toContain(REDACTED);
    expect(out.startsWith("Found:\n")).toBe(true);
    expect(out.endsWith("\nDone.")).toBe(true);
    // No line of the folded token is left.
    for (const line of fold(token, width).split("\n")) if (line.length > 3) expect(out).not.toContain(line);
  });

  it("an AWS secret access key after its name, broken over lines, is hidden whole", () => {
    const out = redactSecrets(`[default]\naws_secret_access_key = ${AWS_SECRET.slice(0, 18)}\n    ${AWS_SECRET.slice(18)}\nregion = eu-west-1`);
    expect(out).toBe("[default]\naws_secret_access_key = [redacted]\nregion = eu-west-1");
  });

  it("a token at the end of a line leaves the next line's settings alone", () => {
    const env = [`SLACK_BOT_TOKEN=${SLACK_BOT}`, `GITHUB_TOKEN=${GITHUB}`, "PATH=/usr/bin", `AWS_ACCESS_KEY_ID=${AWS_ID}`, "HOME=/root"].join("\n");
    expect(redactSecrets(env)).toBe(["SLACK_BOT_TOKEN=xoxb-[redacted]", "GITHUB_TOKEN=ghp_[redacted]", "PATH=/usr/bin", "AWS_ACCESS_KEY_ID=AKIA[redacted]", "HOME=/root"].join("\n"));
  });

  it("holds a line that ends in the start of such a token while the rest may follow", () => {
    const text = `Here:\n${SLACK_BOT.slice(0, 12)}\n`;
    expect(openShapeAt(text, text.length)).toBe("Here:\n".length);
    const prose = "All done, see you\n";
    expect(openShapeAt(prose, prose.length)).toBe(prose.length);
  });
});

describe("an AWS secret access key on its own", () => {
  it("is hidden where the text speaks of AWS", () => {
    const question = `my aws keys are ${AWS_ID} and ${AWS_SECRET}, why does boto say InvalidClientTokenId?`;
    const out = redactSecrets(question);
    expect(out).toBe("my aws keys are AKIA[redacted] and [redacted], why does boto say InvalidClientTokenId?");
  });

  it("leaves hashes and other 40-character words alone", () => {
    const text = "aws s3 cp done; commit 3f786850e387550fdab836ed7e6dc881de23001b; etag 9b2cf535f27731c974343645a3985328; id abcdefghijklmnopqrstuvwxyzabcdefghijklmn";
    expect(redactSecrets(text)).toBe(text);
  });

  it("is left alone in text that is not about AWS", () => {
    const text = `value ${AWS_SECRET} here`;
    expect(redactSecrets(text)).toBe(text);
  });
});

describe("a whole token at the end of a line", () => {
  it("keeps the next line's words when that line goes on past its first word", () => {
    const slack = "xoxb-123456789012-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx";
    const out = redactSecrets(`slack ${slack}\naws AKIAIOSFODNN7EXAMPLE\nduet x`);
    expect(out).toBe("slack xoxb-[redacted]\naws AKIA[redacted]\nduet x");
  });
});
