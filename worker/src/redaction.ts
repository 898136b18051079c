import { redactSecrets } from "@duet/shared";
import type { WorkerConfig } from "./config.ts";

/** Texts up to this long are remembered with their redaction: a turn redacts its answer's text several times (its reply, explanation, model text). */
const REMEMBERED_MAX_CHARS = 4_096;
/** How many such texts are remembered: a turn's few, never a growing store. */
const REMEMBERED = 4;

/**
 * Redaction for everything the Worker stores or answers: well-known token
 * shapes (shared rules) plus the literal values of the Worker's own secrets.
 * The last few short texts are kept with their redaction (redaction is a pure
 * function of the text and the fixed secrets), so the same answer's text is
 * redacted once per turn, not once per place it goes; they stay in memory only.
 */
export function redactor(config: WorkerConfig): (text: string) => string {
  const recent = new Map<string, string>();
  return (text) => {
    if (text.length > REMEMBERED_MAX_CHARS) return redactSecrets(text, config.secrets);
    const known = recent.get(text);
    if (known !== undefined) return known;
    const out = redactSecrets(text, config.secrets);
    if (recent.size >= REMEMBERED) recent.delete(recent.keys().next().value!);
    recent.set(text, out);
    return out;
  };
}
