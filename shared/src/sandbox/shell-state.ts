/**
 * A shell that remembers: each command runs in a fresh shell, so a `cd` or an
 * `export` would be lost with it. Both executors run a command inside this
 * wrapper, which restores the working directory and the exported variables the
 * previous command left (a hidden file in the workspace) and saves them again
 * when the command's shell exits, however it exits (`exit 3` included). The file
 * lives in the workspace, so it is saved and restored with it across a sleep,
 * and a room's reset (which removes the workspace) starts clean.
 */

/** Relative to the workspace; hidden, so `ls` does not show it. */
export const SHELL_STATE_FILE = ".duet/shell-state.sh";

/** One shell word for any text: single quotes, each `'` written as `'\''`. */
export function shellQuote(text: string): string {
  return `'${text.replace(/'/g, `'\\''`)}'`;
}

/**
 * `cmd` wrapped for bash, started in the workspace. The command is run by
 * `eval` in the wrapper's own shell (not a subshell), so its `cd` and `export`
 * are what the exit trap saves; a syntax error in it is eval's error, after
 * which the state is still saved. The saved file is written beside and renamed,
 * so a command killed mid-save leaves the previous state whole. The exit trap
 * keeps the command's exit status. Nothing is written when the command changed
 * neither: no write per command, and a wrapper around a wrapper (a command that
 * itself runs a wrapped command in a child shell) leaves the inner one's state.
 */
export function withShellState(cmd: string): string {
  return [
    `duet_ws=$PWD; duet_state="$duet_ws/${SHELL_STATE_FILE}"`,
    `[ -f "$duet_state" ] && . "$duet_state" 2>/dev/null`,
    `duet_now() { printf 'cd -- %q 2>/dev/null\\n' "$PWD"; export -p; }`,
    `duet_before=$(duet_now)`,
    `duet_save() { duet_after=$(duet_now); [ "$duet_after" = "$duet_before" ] && return; mkdir -p "$duet_ws/.duet" 2>/dev/null && printf '%s\\n' "$duet_after" > "$duet_state.tmp" 2>/dev/null && mv -f "$duet_state.tmp" "$duet_state" 2>/dev/null; }`,
    `trap duet_save EXIT`,
    `eval ${shellQuote(cmd)}`,
  ].join("\n");
}
