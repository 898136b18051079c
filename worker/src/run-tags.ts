import { REPLY_SUMMARY_CHARS, type RunResult } from "@duet/shared";

const RUN_TAG = /<run>([\s\S]*?)<\/run>/gi;
/** A whole tag body fenced as markdown code: ```sh\nls\n``` (small models often do this). */
const FENCED_BODY = /^```[\w+-]*[ \t]*\n([\s\S]*?)\n?```$/;
/** A whole tag body in inline code: `ls -la`. */
const INLINE_BODY = /^`([^`]+)`$/;
/** A code fence that held only <run> tags and is empty once they are gone. */
const EMPTY_FENCE = /```[\w+-]*[ \t]*\n?\s*```/g;

export interface ParsedReply {
  /** The model's text with every <run> tag removed. */
  explanation: string;
  /** Commands to run, in order, at most `max`. */
  commands: string[];
  /** Commands beyond the cap: shown to the user, never run. */
  skipped: string[];
}

/**
 * Reads <run> tags from the MODEL's text only. Command output is never passed
 * here, so text printed by a command can never make Duet run something.
 */
export function parseModelReply(modelText: string, max: number): ParsedReply {
  const all = Array.from(modelText.matchAll(RUN_TAG), (m) => commandOf(m[1])).filter((c) => c.length > 0);
  const explanation = modelText.replace(RUN_TAG, "").replace(EMPTY_FENCE, "").replace(/\n{3,}/g, "\n\n").trim();
  return { explanation, commands: all.slice(0, max), skipped: all.slice(max) };
}

/**
 * The shell command in a tag body. Markdown around the whole body is the model's
 * formatting, not shell: running "```bash" would only fail. Anything else is kept
 * exactly as written (backticks inside a command are command substitution).
 */
function commandOf(body: string): string {
  const trimmed = body.trim();
  const fenced = FENCED_BODY.exec(trimmed);
  if (fenced) return fenced[1].trim();
  const inline = INLINE_BODY.exec(trimmed);
  return inline ? inline[1].trim() : trimmed;
}

/** The original plain-text reply: explanation, then `Output (cmd):` / `Error (cmd):` sections. */
export function buildReply(explanation: string, runs: RunResult[], skipped: string[]): string {
  let text = explanation;
  for (const run of runs) {
    if (run.error !== undefined || run.exitCode === null) {
      text += `\n\nError (${run.cmd}):\n${run.error ?? "outcome unknown"}`;
      continue;
    }
    const summary = run.stdout.slice(0, REPLY_SUMMARY_CHARS) || run.stderr.slice(0, REPLY_SUMMARY_CHARS) || "[no output]";
    text += `\n\nOutput (${run.cmd}):\n${summary}`;
  }
  if (skipped.length > 0) {
    text += `\n\nNot run (limit of ${runs.length} commands per reply): ${skipped.map((c) => `\`${c}\``).join(", ")}`;
  }
  return text.trim();
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** Keeps at most `maxBytes` of UTF-8 text; says whether anything was cut. */
export function capBytes(text: string, maxBytes: number): { text: string; cut: boolean } {
  // Fast path: a string of n UTF-16 units is at most 3n bytes.
  if (text.length * 3 <= maxBytes) return { text, cut: false };
  const bytes = encoder.encode(text);
  if (bytes.length <= maxBytes) return { text, cut: false };
  // A cut through a multi-byte character decodes to U+FFFD; drop it.
  return { text: decoder.decode(bytes.subarray(0, maxBytes)).replace(/\uFFFD$/, ""), cut: true };
}
