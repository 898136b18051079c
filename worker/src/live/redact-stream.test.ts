import { describe, expect, it } from "vitest";
import { redactSecrets } from "@duet/shared";
import { TextOut } from "../reply/text-out.ts";
import { StreamRedactor } from "./redact-stream.ts";

const secret = "sk-live-0123456789abcdefghij";
/** A configured secret with blanks in it: a word boundary falls inside it. */
const phrase = "open sesame seeds 42";
const secrets = [secret, phrase];
const redact = (t: string) => redactSecrets(t, secrets);

/** What went out, piece by piece, for `chunks` streamed through a redactor. */
function streamed(chunks: string[], r = new StreamRedactor(redact, secrets)): string[] {
  const out = chunks.map((c) => r.push(c));
  out.push(r.finish());
  return out;
}

const inPieces = (text: string, size: number) => Array.from({ length: Math.ceil(text.length / size) }, (_, i) => text.slice(i * size, (i + 1) * size));

/** A small seeded generator, so a failing split can be reproduced. */
function random(seed: number) {
  return () => {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff;
    return seed / 0x7fffffff;
  };
}

describe("redacting text as it streams", () => {
  // Each with what must never go out, whatever the pieces.
  const texts: [string, string[]][] = [
    [`Your key is ${secret} and it works.`, ["0123456789abcdefghij"]],
    ["Set password: hunter2-correct-horse then restart.", ["hunter2"]],
    ["Connect to postgres://admin:s3cretpass@db.internal:5432/app now.", ["s3cretpass"]],
    ["Here:\n-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA7\nabcdefghijkl\n-----END RSA PRIVATE KEY-----\nkeep it safe", ["MIIEowIBAAKCAQEA7", "abcdefghijkl"]],
    ['Config:\n{"password": "correct horse battery", "user": "ann"}\nDone.', ["correct", "horse", "battery"]],
    [`The phrase ${phrase} opens it.\nAnd again: ${phrase}`, ["sesame", "seeds"]],
    ["Send\nAuthorization: Bearer abc123def456ghi\nthen GITHUB_TOKEN=ghp_0123456789abcdefghijklmnopqrstuvwxyz ok\n", ["abc123def456ghi", "0123456789abcdefghijklmnopqrstuvwxyz"]],
    // A block whose END has another label is still open: its own END, later, closes it.
    ["a\n-----BEGIN RSA PRIVATE KEY-----\nMIIBzzzz\n-----END EC PRIVATE KEY-----\nQUJDREVGR0g\n-----END RSA PRIVATE KEY-----\nend", ["MIIBzzzz", "QUJDREVGR0g"]],
    ["x\n-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXk\nAAAAC3NzaC1lZDI\n\nafter the key", ["b3BlbnNzaC1rZXk", "AAAAC3NzaC1lZDI"]],
  ];

  function expectExact(text: string, leaks: string[], chunks: string[]) {
    const whole = redact(text);
    const out = streamed(chunks);
    expect(out.join(""), JSON.stringify(chunks)).toBe(whole);
    for (const leak of leaks) expect(out.join("")).not.toContain(leak);
  }

  it("ends on exactly the whole text redacted, split in two at every point", () => {
    for (const [text, leaks] of texts) {
      expect(redact(text)).not.toBe(text);
      for (let i = 1; i < text.length; i++) expectExact(text, leaks, [text.slice(0, i), text.slice(i)]);
    }
  });

  it("ends on exactly the whole text redacted, in pieces of every size and at random", () => {
    for (const [text, leaks] of texts) {
      for (let size = 1; size <= 17; size++) expectExact(text, leaks, inPieces(text, size));
      const next = random(text.length);
      for (let round = 0; round < 20; round++) {
        const chunks: string[] = [];
        for (let i = 0; i < text.length; ) {
          const n = 1 + Math.floor(next() * 12);
          chunks.push(text.slice(i, i + n));
          i += n;
        }
        expectExact(text, leaks, chunks);
      }
    }
  });

  it("lets plain prose out word by word, before the text ends", () => {
    const r = new StreamRedactor(redact, secrets);
    expect(r.push("Listing the fi")).toBe("Listing the ");
    expect(r.push("les now")).toBe("files ");
    expect(r.finish()).toBe("now");
  });

  it("lets a word out as soon as a blank is known to follow it, and holds a word still being written", () => {
    const r = new StreamRedactor(redact, secrets);
    expect(r.push("Listing", " ")).toBe("Listing");
    expect(r.allOut).toBe(true);
    expect(r.push(" the fi")).toBe(" the ");
    expect(r.allOut).toBe(false);
    expect(r.push("les", " ")).toBe("files");
    expect(r.finish()).toBe("");
  });

  it("holds the first part of a token with a blank after it: the blank may turn out a line break inside the token", () => {
    const r = new StreamRedactor(redact, secrets);
    expect(r.push("See ghp_0123456789abcdef", " ")).toBe("See ");
    expect(r.allOut).toBe(false);
  });

  it("as the Worker hands text out (a blank written once text follows it), never lets out what the whole text redacted hides", () => {
    const token = ["xoxb-", "1234567890-1234567890123-", "AbCdEfGhIjKlMnOpQrStUvWx"].join("");
    const github = "ghp_0123456789abcdefghijklmnopqrstuvwxyz";
    // Spaces before a line break are dropped: the blank after a line's last word turns out a line break.
    const folded = [token, github].flatMap((t) => [`Here:\n${t.match(/.{1,16}/g)!.join("\n")}\nDone.`, `Here it is:\n${t.match(/.{1,16}/g)!.join(" \n")} \nDone.`]);
    const spaced = [`The words ${phrase} \n and ${phrase} \n end.`];
    for (const text of [...texts.map(([t]) => t), ...folded, ...spaced]) {
      for (let size = 1; size <= 13; size++) {
        const out = new TextOut();
        const r = new StreamRedactor(redact, secrets);
        const pieces = inPieces(text, size);
        for (const piece of pieces) out.write(piece);
        const whole = redact(out.all);
        const fed = new TextOut();
        let sent = "";
        for (const piece of pieces) {
          fed.write(piece);
          sent += r.push(fed.take(), fed.blankPending);
          // What went out at any moment is the start of the whole text redacted: nothing to take back.
          expect(whole.startsWith(sent), JSON.stringify({ size, sent })).toBe(true);
        }
        expect(sent + r.finish()).toBe(whole);
      }
    }
  });

  it("redacts each line a bounded number of times: a long answer costs linear time", () => {
    // Without the unterminated key block, which holds everything after it until the end.
    const lines = texts.slice(0, -1).map(([t]) => t).join("\n");
    const text = Array.from({ length: 12 }, () => lines).join("\n\n");
    let redacted = 0;
    const counting = (t: string) => {
      redacted += t.length;
      return redact(t);
    };
    const out = streamed(inPieces(text, 16), new StreamRedactor(counting, secrets));
    expect(out.join("")).toBe(redact(text));
    // Re-redacting everything so far per piece would be ~pieces/2 times the text (over 100 times here).
    expect(redacted / text.length).toBeLessThan(12);
  });

  it("with a configured secret over two lines, never lets its first line out and ends on the whole text redacted", () => {
    const twoLines = "first-line-of-it\nsecond-line-of-it";
    const r = new StreamRedactor((t) => redactSecrets(t, [twoLines]), [twoLines]);
    const text = `Before.\nThe value is ${twoLines} and more.\nAfter.`;
    const out = streamed(inPieces(text, 3), r);
    expect(out.join("")).toBe(redactSecrets(text, [twoLines]));
    expect(out.join("")).not.toContain("first-line-of-it");
  });

  it("never lets out the first part of a known secret copied over two lines, or of its base64, wherever the line breaks", () => {
    const b64 = btoa(`token=${secret}`);
    for (const copy of [secret, b64]) {
      for (let k = 1; k < copy.length; k++) {
        const text = `Here it is:\n${copy.slice(0, k)}\n  ${copy.slice(k)}\nDone.`;
        const whole = redact(text);
        // The whole text redacted hides the copy (of the base64, the part only the secret's bytes make).
        if (copy === secret) expect(whole, text).not.toContain(copy.slice(0, k) + "\n");
        else expect(whole, text).toContain("[redacted]");
        for (let i = 1; i < text.length; i += 3) {
          const r = new StreamRedactor(redact, secrets);
          let sent = "";
          for (const piece of [text.slice(0, i), text.slice(i)]) {
            sent += r.push(piece);
            // What went out at any moment is the start of the whole text redacted: nothing to take back.
            expect(whole.startsWith(sent), JSON.stringify({ k, i, sent })).toBe(true);
          }
          expect(sent + r.finish()).toBe(whole);
        }
      }
    }
  });

  it("never lets out the first line of another service's token folded over lines, wherever the pieces break", () => {
    const token = ["xoxb-", "1234567890-1234567890123-", "AbCdEfGhIjKlMnOpQrStUvWx"].join("");
    const text = `Token:\n${token.match(/.{1,16}/g)!.join("\n")}\nDone.`;
    const whole = redact(text);
    expect(whole).toBe("Token:\nxoxb-[redacted]\nDone.");
    for (let i = 1; i < text.length; i++) {
      const out = streamed([text.slice(0, i), text.slice(i)]);
      expect(out.join(""), String(i)).toBe(whole);
    }
  });
});
