import {
  describeRun,
  headTail,
  redactSecrets,
  runOfExec,
  type DuetMessage,
  type ExecResponse,
  type MessageResponse,
  type RunResult,
} from "@duet/shared";

/**
 * How the CLI shows answers in a terminal: the explanation, then each command as
 * `$ cmd`, its status line and its output indented under a bar. Pure functions of
 * the Worker's answer, so the layout is tested without a terminal.
 */

/** A terminal scrolls, but 64 KiB of output per command buries the answer: keep the start and the end. */
export const TERMINAL_OUTPUT_CHARS = 8_000;

export interface Style {
  bold(s: string): string;
  dim(s: string): string;
  red(s: string): string;
  green(s: string): string;
  yellow(s: string): string;
  cyan(s: string): string;
}

/** Colour only for a person at a terminal, and never when NO_COLOR is set (https://no-color.org). */
export function useColor(stream: { isTTY?: boolean }, env: Record<string, string | undefined>): boolean {
  return Boolean(stream.isTTY) && !env.NO_COLOR;
}

const sgr = (open: number, close: number) => (s: string) => (s ? `\x1b[${open}m${s}\x1b[${close}m` : s);
const plain = (s: string) => s;

export function makeStyle(color: boolean): Style {
  if (!color) return { bold: plain, dim: plain, red: plain, green: plain, yellow: plain, cyan: plain };
  return { bold: sgr(1, 22), dim: sgr(2, 22), red: sgr(31, 39), green: sgr(32, 39), yellow: sgr(33, 39), cyan: sgr(36, 39) };
}

/** Control characters from command output would move the cursor or recolour the terminal; show them inert. */
function inert(text: string): string {
  return text.replace(/\r\n/g, "\n").replace(/[\u0000-\u0008\u000B-\u001F\u007F-\u009F]/g, (c) => (c === "\r" ? "" : "\uFFFD"));
}

export function renderRun(run: RunResult, style: Style, secrets: readonly string[] = []): string {
  const view = describeRun(run, secrets);
  const lines = [style.bold(style.cyan(inert(view.command).replace(/\n/g, "\n  "))), `  ${view.ok ? style.green(view.status) : style.red(view.status)}`];
  const output = inert(view.output);
  if (output.trim() === "") {
    lines.push(`  ${style.dim("(no output)")}`);
  } else {
    const shown = headTail(output, TERMINAL_OUTPUT_CHARS, "").text;
    for (const line of shown.split("\n")) lines.push(`  ${style.dim("│")} ${line}`);
  }
  return lines.join("\n");
}

/**
 * The model's explanation alone: `reply` repeats each command's output in `Output (cmd):` /
 * `Error (cmd):` sections (the original plain-text format), which `runs` shows better.
 */
export function explanationOf(res: MessageResponse): string {
  let text = res.reply;
  if (res.runs.length > 0 || res.skipped?.length) {
    const cut = text.search(/(?:^|\n\n)(?:Output|Error) \(|(?:^|\n\n)Not run \(limit of/);
    if (cut >= 0) text = text.slice(0, cut);
  }
  return text.trim();
}

export function renderAnswer(res: MessageResponse, style: Style, secrets: readonly string[] = []): string {
  const parts: string[] = [];
  const explanation = inert(redactSecrets(explanationOf(res), secrets));
  if (explanation) parts.push(explanation);
  for (const run of res.runs) parts.push(renderRun(run, style, secrets));
  if (res.skipped?.length) {
    const list = res.skipped.map((c) => inert(redactSecrets(c, secrets))).join(", ");
    parts.push(style.yellow(`Not run (over the limit of ${res.runs.length} commands per reply): ${list}`));
  }
  if (parts.length === 0) parts.push(style.dim("(Duet answered with no text)"));
  return parts.join("\n\n");
}

export function renderExec(cmd: string, res: ExecResponse, style: Style, secrets: readonly string[] = []): string {
  return renderRun(runOfExec(cmd, res.result), style, secrets);
}

const pad = (n: number) => String(n).padStart(2, "0");

/** Local time, `2026-05-01 14:03:09`: the person reading it is at this machine. */
export function formatTs(ts: number): string {
  const d = new Date(ts);
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())} ${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}`;
}

export function renderHistory(room: string, messages: readonly DuetMessage[], style: Style, secrets: readonly string[] = []): string {
  if (messages.length === 0) return style.dim(`(no messages in ${room} yet)`);
  return messages
    .map((m) => {
      const who = m.role === "agent" ? style.green("duet") : style.cyan(m.userId || "user");
      const text = inert(redactSecrets(m.text, secrets)).replace(/\n/g, "\n    ");
      return `${style.dim(formatTs(m.ts))} ${style.bold(who)}: ${text}`;
    })
    .join("\n");
}

export function renderReset(room: string, errors: readonly string[] | undefined, style: Style): string {
  if (!errors?.length) return style.green(`Room ${room} reset: history wiped, sandbox destroyed.`);
  return style.yellow(`Room ${room} reset, but part of it failed: ${errors.join("; ")}`);
}
