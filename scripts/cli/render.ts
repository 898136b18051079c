import {
  auditTitle,
  describeSchedule,
  scheduledText,
  schedulesTitle,
  unscheduledText,
  describeAuditEntry,
  describeDecision,
  describePolicy,
  settingsLines,
  type Naming,
  describeModel,
  describeRepoReply,
  describeToolsReply,
  PR_WORDS,
  prDecidedLine,
  prProposalHead,
  type PrProposal,
  describeUsage,
  memoryText,
  describeRun,
  explanationOf,
  headTailLines,
  helpEntries,
  notRunNote,
  resetFactsNote,
  proposedFactsHint,
  type ProposedFact,
  resetText,
  STOPPED_NOTE,
  runOfExec,
  type DuetMessage,
  type ExecResult,
  type MessageResponse,
  type PendingApproval,
  type Reply,
  type RunResult,
} from "@duet/shared";
import { cliSpelling } from "./spelling.ts";

/**
 * How the CLI shows answers in a terminal: the explanation, then each command as
 * `$ cmd`, its status line and its output indented under a bar. Pure functions of
 * the Worker's answer, so the layout is tested without a terminal.
 */

/**
 * A terminal scrolls, but 64 KiB of output per command buries the answer: about a
 * screenful is kept, the start and the end, in lines and (for long lines) characters.
 */
export const TERMINAL_OUTPUT_LINES = 40;
export const TERMINAL_OUTPUT_CHARS = 6_000;
/** Ends the marker line where output was cut, so the reader knows it was the CLI's screenful and not the command. */
const CUT_NOTE = `the CLI shows about ${TERMINAL_OUTPUT_LINES} lines of a command's output`;

/** Under output the sandbox or the Worker cut: its end shown is not the command's. */
const CUT_BEFORE_END = "(the command printed more than was kept: this ends where the kept part ends, not where its output did)";

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
export function inert(text: string): string {
  return text.replace(/\r\n/g, "\n").replace(/[\u0000-\u0008\u000B-\u001F\u007F-\u009F]/g, (c) => (c === "\r" ? "" : "\uFFFD"));
}

export function renderRun(run: RunResult, style: Style): string {
  const view = describeRun(run);
  const lines = [style.bold(style.cyan(inert(view.command).replace(/\n/g, "\n  "))), `  ${view.ok ? style.green(view.status) : style.red(view.status)}`];
  const output = inert(view.output);
  if (output.trim() === "") {
    lines.push(`  ${style.dim("(no output)")}`);
  } else {
    const shown = headTailLines(output, TERMINAL_OUTPUT_LINES, TERMINAL_OUTPUT_CHARS, CUT_NOTE).text;
    for (const line of shown.split("\n")) lines.push(`  ${style.dim("│")} ${line}`);
  }
  // Only the start of a long output is kept: the last line above is where what was kept ends.
  if (run.truncated) lines.push(`  ${style.yellow(CUT_BEFORE_END)}`);
  return lines.join("\n");
}

export function renderAnswer(res: MessageResponse, style: Style): string {
  const parts: string[] = [];
  const explanation = inert(explanationOf(res));
  if (explanation) parts.push(explanation);
  for (const run of res.runs) parts.push(renderRun(run, style));
  if (res.skipped?.length) {
    parts.push(style.yellow(notRunNote(res, res.skipped.map((c) => inert(c)))));
  }
  if (res.stopped) parts.push(style.yellow(STOPPED_NOTE));
  if (res.pending?.length) parts.push(renderPending(res.pending, style));
  if (res.facts?.length) parts.push(renderProposedFacts(res.facts, style));
  if (parts.length === 0) parts.push(style.dim("(Duet answered with no text)"));
  return parts.join("\n\n");
}

/** Facts the model proposed: a terminal has no Pin button, so the line says how to pin one by typing it. */
export function renderProposedFacts(facts: readonly ProposedFact[], style: Style): string {
  return [proposedFactsHint(facts.length).replace(/ \(nothing is pinned until someone clicks Pin\):$/, " (nothing is pinned until you do: duet remember ROOM FACT):"), ...facts.map((f) => `  - ${inert(f.fact)}`)]
    .map((l, i) => (i === 0 ? style.dim(l) : l))
    .join("\n");
}

/** The commands an answer left waiting under `approve`, numbered as `/approve N` counts them, with the ids `duet approve` takes. */
export function renderPending(pending: readonly PendingApproval[], style: Style): string {
  const lines = pending.flatMap((p, i) => [`  [${i + 1}] ${inert(p.cmd)}`, style.dim(`      id ${p.id}`)]);
  const how = "/approve N or /skip N in `duet chat`; `duet approve ROOM ID` or `duet skip ROOM ID`; Run or Skip in Slack or Discord";
  return style.yellow([`Waiting for approval (run policy: approve):`, ...lines, `  ${how}`].join("\n"));
}

export function renderExec(cmd: string, result: ExecResult, style: Style): string {
  return renderRun(runOfExec(cmd, result), style);
}

const pad = (n: number) => String(n).padStart(2, "0");

/** Local time, `2026-05-01 14:03:09`: the person reading it is at this machine. */
export function formatTs(ts: number): string {
  const d = new Date(ts);
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())} ${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}`;
}

export function renderHistory(room: string, messages: readonly DuetMessage[], style: Style): string {
  if (messages.length === 0) return style.dim(`(no messages in ${room} yet)`);
  return messages
    .map((m) => {
      // A schedule's run is the schedule's question, not something the person typed then.
      const who = m.role === "agent" ? style.green("duet") : m.schedule ? style.yellow(`schedule ${m.schedule}`) : style.cyan(m.userId || "user");
      const text = inert(m.text).replace(/\n/g, "\n    ");
      return `${style.dim(formatTs(m.ts))} ${style.bold(who)}: ${text}`;
    })
    .join("\n");
}

/** The shared reset sentence, after the room's name: a terminal can look at any room. */
export function renderReset(room: string, user: string, errors: readonly string[], style: Style, facts?: "kept" | "wiped"): string {
  const said = resetText(user, errors, "`duet reset`");
  const text = `Room ${room}: ${facts ? `${said} ${resetFactsNote(facts)}` : said}`;
  return errors.length ? style.yellow(text) : style.green(text);
}

/** How the commands are typed in `duet chat`. */
const CHAT_SYNTAX = {
  ask: "TEXT",
  run: "!CMD",
  stop: "Ctrl-C",
  get: "duet get ROOM PATH [OUT]",
  history: "/history",
  reset: "/reset",
  policy: "/policy [auto|approve]",
  model: "/model [NAME]",
  repo: "/repo [OWNER/NAME[@BRANCH]|unlink|sync]",
  pr: "duet pr ROOM [TITLE]",
  tools: "duet tools ROOM [...]",
  usage: "/usage",
  audit: "/audit",
  schedule: "/schedule WHEN ASK",
  schedules: "/schedules",
  unschedule: "/unschedule ID",
  remember: "/remember FACT",
  memory: "/memory",
  forget: "/forget N",
  help: "/help",
};

/** `duet chat`'s help: each line is a question, the rest as listed. */
export function chatHelp(): string {
  const entries: [string, string][] = [
    ...helpEntries(CHAT_SYNTAX, "terminal"),
    ["/approve [N]", "run waiting command N (the only one when N is left out)"],
    ["/skip [N]", "skip it instead"],
    ["/quit", "leave (Ctrl-D works too)"],
  ];
  return ["Each line is a question for Duet. Also:", ...entries.map(([syntax, purpose]) => `  ${syntax.padEnd(22)} ${purpose}`)].join("\n");
}

/** Where the CLI is reached and how it authenticates, for advice beside an error. */
export interface ErrorContext {
  style: Style;
  baseUrl: string;
  tokenSource: string;
}

/** The shared words for a failure speak to chat users; at a terminal the reader is the admin, so say where to look. */
function errorLine(reply: Extract<Reply, { kind: "error" }>, ctx: ErrorContext): string {
  if (reply.code === "worker_unreachable") return `${reply.text} (nothing answers at ${ctx.baseUrl}: is \`npm run dev\` running?)`;
  if (reply.code === "unauthorized") return `The Worker at ${ctx.baseUrl} refused the CLI's API token (from ${ctx.tokenSource}): check DUET_API_TOKEN.`;
  if (reply.code === "model_not_configured") return `${reply.text} (\`npm run dev\` prints how to set one)`;
  return reply.text;
}

/** The chat flow's replies as terminal text. */
export function renderReply(reply: Reply, room: string, ctx: ErrorContext): string {
  const { style } = ctx;
  switch (reply.kind) {
    case "answer":
      return renderAnswer(reply.answer, style);
    case "ran":
      return renderExec(reply.cmd, reply.result, style);
    case "history":
      return renderHistory(room, reply.messages, style);
    case "reset":
      return renderReset(room, reply.user, reply.errors, style, reply.facts);
    // A terminal has no buttons: a reset never asks there, and a proposed fact is pinned by typing it.
    case "reset-ask":
    case "reset-cancelled":
    case "fact-decided":
      return "";
    case "help":
      return [reply.problem, chatHelp(), ...settingsLines(reply)].filter(Boolean).join("\n\n");
    case "policy":
      return describePolicy(reply.runPolicy, reply.setBy, TERMINAL_NAMING, reply.source).replace(/\*/g, "");
    case "model":
      return describeModel(reply, TERMINAL_NAMING);
    case "repo":
      return describeRepoReply(reply.repo, reply.event, terminalNaming(room));
    case "tools":
      return describeToolsReply(reply, terminalNaming(room));
    case "pr-proposal":
      return renderPrProposal(reply.proposal, room, style);
    case "pr-decided":
      // A terminal cannot change what it printed: what became of the proposal (its link, once opened) is a line of its own.
      return prDecidedLine(reply.opened ? { opened: reply.opened, by: reply.by } : { skippedBy: reply.by }, TERMINAL_NAMING);
    case "pr-no-repo":
      return PR_WORDS.noRepo(terminalNaming(room));
    case "usage":
      return describeUsage(reply.usage, TERMINAL_NAMING);
    case "memory":
      return memoryText(reply, terminalNaming(room));
    case "audit":
      return [style.bold(auditTitle(reply.entries.length, reply.total)), ...reply.entries.map((e) => `  ${describeAuditEntry(e, TERMINAL_NAMING)}`)].join("\n");
    case "scheduled":
      return scheduledText(reply.schedule, reply.user, terminalNaming(room));
    case "schedules":
      return [style.bold(schedulesTitle(reply.schedules.length, terminalNaming(room))), ...reply.schedules.map((s) => `  ${describeSchedule(s, TERMINAL_NAMING)}`)].join("\n");
    case "unscheduled":
      return unscheduledText(reply.schedule, reply.user, TERMINAL_NAMING);
    case "refused":
      return style.yellow(reply.text);
    case "decided":
      return describeDecision(reply.approval, TERMINAL_NAMING);
    case "hint":
      return reply.text;
    case "error":
      return errorLine(reply, ctx);
  }
}

/** A pull request proposal at the terminal: its head, the diff's first lines (the model's data, made inert), and how to open or skip it. */
function renderPrProposal(p: PrProposal, room: string, style: Style): string {
  const spell = cliSpelling(room);
  const diff = inert(p.diffHead.replace(/\n$/, "")).split("\n").map((l) => `  ${l}`);
  return [style.bold(prProposalHead(p, TERMINAL_NAMING)), ...diff, `Open it: ${spell("pr", "--open", p.id)} · drop it: ${spell("pr", "--skip", p.id)}`].join("\n");
}

/** People by their ids and commands as typed (inert): a terminal has no mentions. */
const TERMINAL_NAMING: Naming = { person: (id) => id, command: (cmd) => `\`${inert(cmd)}\``, label: (name) => inert(name) };

/** As TERMINAL_NAMING, Duet's commands spelled as typed at the terminal for `room` (`duet unschedule demo <id>`). */
function terminalNaming(room: string): Naming {
  const spell = cliSpelling(room);
  return { ...TERMINAL_NAMING, duet: (words) => { const [sub, ...args] = words.split(" "); return `\`${spell(sub, ...args)}\``; } };
}
