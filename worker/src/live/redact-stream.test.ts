import { describe, expect, it } from "vitest";
import { redactSecrets } from "@duet/shared";
import { StreamRedactor } from "./redact-stream.ts";

const secret = "sk-live-0123456789abcdefghij";
const redact = (t: string) => redactSecrets(t, [secret]);

/** Every split of `text` into pieces of `size`: what went out, piece by piece. */
function streamed(text: string, size: number): string[] {
  const r = new StreamRedactor(redact);
  const out: string[] = [];
  for (let i = 0; i < text.length; i += size) out.push(r.push(text.slice(i, i + size)));
  out.push(r.finish());
  return out;
}

describe("redacting text as it streams", () => {
  const texts = [
    `Your key is ${secret} and it works.`,
    "Set password: hunter2-correct-horse then restart.",
    "Connect to postgres://admin:s3cretpass@db.internal:5432/app now.",
    "Here:\n-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA7\nabcdefghijkl\n-----END RSA PRIVATE KEY-----\nkeep it safe",
  ];

  it("never lets a secret out, whatever the pieces, and ends on the whole text redacted", () => {
    for (const text of texts) {
      const whole = redact(text);
      expect(whole).not.toBe(text);
      for (const size of [1, 2, 3, 5, 8, 13, 64]) {
        const out = streamed(text, size);
        expect(out.join("")).toBe(whole);
        for (const leaked of ["0123456789abcdefghij", "hunter2", "s3cretpass", "MIIEowIBAAKCAQEA7"]) {
          expect(out.join("")).not.toContain(leaked);
        }
      }
    }
  });

  it("lets plain prose out word by word, before the text ends", () => {
    const r = new StreamRedactor(redact);
    expect(r.push("Listing the fi")).toBe("Listing the ");
    expect(r.push("les now")).toBe("files ");
    expect(r.finish()).toBe("now");
  });
});
