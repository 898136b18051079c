import { redactSecrets } from "@duet/shared";
import { StreamRedactor } from "../../worker/src/live/redact-stream.ts";
import { summarize, type Result } from "../stats.ts";

/**
 * The CPU the Worker spends redacting a live answer: a 20 KB answer (prose,
 * code blocks, a few secrets) streamed in 16-character pieces through the
 * StreamRedactor, beside redacting the same text once as a whole (the floor).
 * Measured in this process (the same V8 as workerd) with process.cpuUsage.
 */

const ANSWER_BYTES = 20_000;
const PIECE_CHARS = 16;
const SECRETS = ["duet-api-token-0123456789"];

function answer(): string {
  const lines = [
    "I'll look at the build first, then the config it reads.",
    "The failing step is the bundle: it reads `API_URL` and `DB_PASSWORD` from the environment.",
    "```bash",
    "export DB_PASSWORD=hunter2-correct-horse",
    "curl -H 'Authorization: Bearer sk-live-0123456789abcdefghijkl' https://api.example.com/v1/items",
    "```",
    "Then connect with postgres://admin:s3cretpass@db.internal:5432/app and check the table sizes.",
    "Nothing here needs a restart; the cache warms itself within a minute or two of the first request.",
  ];
  let text = "";
  for (let i = 0; text.length < ANSWER_BYTES; i++) text += `${lines[i % lines.length]}\n`;
  return text.slice(0, ANSWER_BYTES);
}

function cpuMs(fn: () => void): number {
  const t0 = process.cpuUsage();
  fn();
  const d = process.cpuUsage(t0);
  return (d.user + d.system) / 1000;
}

export async function streamRedactCpu(samples = 20): Promise<Result[]> {
  const text = answer();
  const redact = (t: string) => redactSecrets(t, SECRETS);
  const streamed: number[] = [];
  const whole: number[] = [];
  for (let i = 0; i < samples + 2; i++) {
    let out = "";
    const ms = cpuMs(() => {
      const r = new StreamRedactor(redact, SECRETS);
      for (let at = 0; at < text.length; at += PIECE_CHARS) out += r.push(text.slice(at, at + PIECE_CHARS));
      out += r.finish();
    });
    const once = cpuMs(() => redact(text));
    if (out !== redact(text)) throw new Error("the streamed redaction differs from redacting the whole answer");
    // The first two rounds warm the JIT.
    if (i >= 2) {
      streamed.push(ms);
      whole.push(once);
    }
  }
  return [
    summarize("live redaction: 20 KB answer in 16-char pieces", "ms CPU", streamed, `${Math.ceil(ANSWER_BYTES / PIECE_CHARS)} pieces through the StreamRedactor`),
    summarize("live redaction: the same answer redacted once", "ms CPU", whole, "redactSecrets on the whole text: the floor"),
  ];
}
