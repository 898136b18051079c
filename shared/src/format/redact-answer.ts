import type { MessageResponse, RunResult } from "../wire/schemas.ts";
import { redactSecrets } from "./redact.ts";

/**
 * A Worker answer with every text a person may read redacted: the front ends
 * show it as it is. `secrets` are literal values besides the shared patterns
 * (a bot's own tokens).
 *
 * Its `messages` (the room's history, up to 50) come back empty: no front end
 * shows an answer's history (`/duet history` reads it on its own), and redacting
 * every message of it cost the bot about a millisecond of CPU per answer, for
 * text no one would see.
 */

export function redactRun(run: RunResult, secrets: readonly string[]): RunResult {
  const r = (text: string) => redactSecrets(text, secrets);
  return { ...run, cmd: r(run.cmd), stdout: r(run.stdout), stderr: r(run.stderr), ...(run.error !== undefined ? { error: r(run.error) } : {}) };
}

export function redactAnswer(res: MessageResponse, secrets: readonly string[]): MessageResponse {
  const r = (text: string) => redactSecrets(text, secrets);
  return {
    ...res,
    reply: r(res.reply),
    ...(res.explanation !== undefined ? { explanation: r(res.explanation) } : {}),
    messages: [],
    runs: res.runs.map((run) => redactRun(run, secrets)),
    ...(res.skipped ? { skipped: res.skipped.map(r) } : {}),
    ...(res.pending ? { pending: res.pending.map((p) => ({ ...p, cmd: r(p.cmd) })) } : {}),
    ...(res.facts ? { facts: res.facts.map((f) => ({ ...f, fact: r(f.fact) })) } : {}),
  };
}
