/**
 * Prompt signs models copy from terminal transcripts, told apart from shell syntax.
 *
 * `$ ` in front of a command is always a prompt: the shell gives it no meaning.
 * `>` is both a prompt (bash's continuation prompt, Windows and PowerShell
 * prompts, a markdown quote) and output redirection: `> app.log` alone empties
 * app.log, `>> log` and `>out.txt` write to a file. A leading `>` is read as a
 * prompt only where the text after it is a command:
 *
 * - `>>` and a `>` with no blank after it are always redirection (no prompt is
 *   written that way).
 * - `> ` + a word + its arguments is a prompt (`> npm test`, `> ls | wc -l`,
 *   `> cat <<EOF`): models put a redirection's target last, never first.
 * - `> ` + one word alone, or followed only by `;`, `&`, `&&`, `||` or another
 *   file descriptor's redirection (`2>&1`), names the file being written
 *   (`> app.log`, `> /dev/null 2>&1 && echo cleared`), unless the word is one of
 *   BARE_COMMANDS. A quoted word is always a file name.
 *
 * Either way round the cost of a misreading is bounded: a truncation read as a
 * prompt could only run one of those read-only commands; a prompt read as a
 * redirection writes an empty file rather than running a program named like it.
 *
 * A multi-line command whose first line starts with a prompt, and every other
 * line with `$ ` or `>` (a transcript, continuation prompts, a quoted block),
 * loses one sign from each line; otherwise later lines are kept as written (a
 * heredoc may hold lines that start with `> `).
 */

/** Commands models run with nothing after them, all of which only read. */
const BARE_COMMANDS = new Set(["ls", "dir", "pwd", "whoami", "id", "groups", "date", "env", "printenv", "hostname", "uname", "uptime", "df", "du", "free", "ps", "nproc", "tree"]);
const DOLLAR_PROMPT = /^\$[ \t]+/;
/** `> ` + the first word (up to a shell operator) + what follows it on the line. */
const GREATER_PROMPT = /^>[ \t]+([^\s;&|<>()]+)[ \t]*(.*)$/;
/** What may follow a redirection target: a list operator or another descriptor's redirection. */
const AFTER_TARGET = /^(?:[;&]|\|\||\d+[<>])/;
/** A sign on a line after the first: one blank after it at most, so indentation under it is kept. */
const LATER_SIGN = /^(?:\$[ \t]|>(?:[ \t]|$))/;

/** `cmd` without the prompt signs a model copied along with it. */
export function withoutPrompts(cmd: string): string {
  const [first, ...rest] = cmd.split("\n");
  const bare = firstLineCommand(first);
  if (bare === null) return cmd;
  const transcript = rest.length > 0 && rest.every((line) => LATER_SIGN.test(line));
  const later = transcript ? rest.map((line) => line.replace(/^[$>][ \t]?/, "")) : rest;
  return [bare, ...later].join("\n");
}

/** The first line without its prompt sign, or null when it has none. */
function firstLineCommand(line: string): string | null {
  if (DOLLAR_PROMPT.test(line)) return line.replace(DOLLAR_PROMPT, "");
  const m = GREATER_PROMPT.exec(line);
  if (!m) return null;
  const [, word, after] = m;
  if (word.startsWith('"') || word.startsWith("'")) return null;
  const targetOnly = after === "" || AFTER_TARGET.test(after);
  if (targetOnly && !BARE_COMMANDS.has(word)) return null;
  return line.replace(/^>[ \t]+/, "");
}
