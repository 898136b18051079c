import type { MessageResponse } from "../wire/schemas.ts";

const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/**
 * The model's own words from a Worker answer, for clients that render `runs`
 * themselves. The Worker sends them as `explanation`; an answer without it (an
 * older Worker) is cut where the first `Output (cmd):` / `Error (cmd):` section
 * of `reply` begins, since `runs` shows those better.
 */
export function explanationOf(res: MessageResponse): string {
  if (res.explanation !== undefined) return res.explanation.trim();
  const first = res.runs[0];
  if (!first) return res.reply.trim();
  const exact = new RegExp(`(?:^|\\n\\n)(?:Output|Error) \\(${escapeRegExp(first.cmd)}\\):`);
  // If the Worker redacted the command in the reply differently, any section header will do.
  const any = /(?:^|\n\n)(?:Output|Error) \(.*\):\n/;
  const at = res.reply.search(exact);
  const cut = at >= 0 ? at : res.reply.search(any);
  return (cut >= 0 ? res.reply.slice(0, cut) : res.reply).trim();
}
