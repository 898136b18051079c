import { withoutPrompts } from "./prompt-sign.ts";

/** A whole tag body fenced as markdown code: ```sh\nls\n``` (small models often do this). */
const FENCED_BODY = /^```[\w+-]*[ \t]*\n([\s\S]*?)\n?```$/;
/** A whole tag body in inline code: `ls -la`. */
const INLINE_BODY = /^`([^`]+)`$/;
/**
 * Words the system prompt and common prompts use as stand-ins for a command. Run as
 * written they would do something else entirely (`command` is a shell builtin).
 */
const PLACEHOLDERS = new Set(["command", "cmd", "commands", "your command", "your-command", "shell command", "<command>", "<cmd>", "...", "…"]);

/**
 * The shell command in a tag body. Markdown around the whole body and prompt
 * signs copied from a terminal are the model's formatting, not shell: running
 * "```bash" or "$ ls" would only fail (`> out.txt`, though, is a redirection:
 * see prompt-sign.ts). Anything else is kept exactly as written (backticks
 * inside a command are command substitution).
 */
export function commandOf(body: string): string {
  let cmd = body.trim();
  const fenced = FENCED_BODY.exec(cmd);
  if (fenced) cmd = fenced[1].trim();
  const inline = INLINE_BODY.exec(cmd);
  if (inline) cmd = inline[1].trim();
  return withoutPrompts(cmd).trim();
}

/** True for a stand-in word (`command`, `cmd`, ...) rather than a command. */
export function isPlaceholder(cmd: string): boolean {
  return PLACEHOLDERS.has(cmd.toLowerCase());
}

/**
 * How a command inside a sentence is shown: as inline code, in its place. A
 * command over several lines cannot be inline code, so it is left out of the
 * sentence (its output still follows in the reply).
 */
export function inlineCode(cmd: string): string {
  if (cmd.includes("\n")) return "";
  return cmd.includes("`") ? `\`\` ${cmd} \`\`` : `\`${cmd}\``;
}
