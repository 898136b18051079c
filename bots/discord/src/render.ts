import { type AttachmentPayload, MessageFlags } from "discord.js";
import {
  ANSWER_NOTES,
  chunkMessage,
  cleanModelText,
  codeBlock,
  decidedText,
  describeRun,
  escapeFences,
  explanationOf,
  headTail,
  helpEntries,
  HELP_INTRO,
  HELP_MORE,
  historySnippet,
  historyTitle,
  HISTORY_SHOWN,
  NO_HISTORY,
  NOTHING_TO_SAY,
  notRunNote,
  runOfExec,
  type DuetMessage,
  type ExecResult,
  type MessageResponse,
  type Reply,
  type RunResult,
  settingsLines,
  STOPPED_NOTE,
  PR_WORDS,
  prDecidedLine,
} from "@duet/shared";
import { withoutPreviews } from "./links.ts";
import type { TopLevelJson } from "./components-json.ts";
import { proposalPart, type RowJson } from "./control/approval-buttons.ts";
import { NAMING, REPO_NAMING, renderAudit, renderMemory, renderModel, renderPolicy, renderRepo, renderTools, renderUsage } from "./control/render-control.ts";
import { prProposalPart } from "./control/pr-buttons.ts";
import { factDecidedText, proposedFactsPart, resetAskPart, resetDoneText } from "./control/memory-buttons.ts";
import { renderScheduled, renderSchedules, renderUnscheduled } from "./control/render-schedules.ts";

/**
 * Discord messages from Worker answers, already redacted by the flow. The
 * chunking and head/tail are shared with Slack; the layout is Discord's:
 * markdown, one code block per command holding `$ cmd` and its output, and
 * long output as a .txt file.
 */

export interface Outgoing {
  content: string;
  files: AttachmentPayload[];
  /** Button rows (Run and Skip on a proposal); in a V2 message, its one container. */
  components?: TopLevelJson[];
  /** A Components V2 message (render-v2.ts): `components` hold all it shows, `content` is unused. */
  v2?: true;
}

/** A message as discord.js sends it: a V2 one with its flag and without content. */
export function messageBody(msg: Outgoing): { content?: string; files: AttachmentPayload[]; components?: TopLevelJson[]; flags?: number } {
  if (msg.v2) return { files: msg.files, components: msg.components, flags: MessageFlags.IsComponentsV2 };
  return { content: msg.content, files: msg.files, components: msg.components };
}

/** Discord's limit per message. */
export const MESSAGE_MAX_CHARS = 2_000;
/** Output shown inline per command; past it, head and tail inline and the whole output as a file. */
export const INLINE_OUTPUT_MAX_CHARS = 1_400;
/** Discord accepts at most 10 attachments per message. */
const FILES_PER_MESSAGE = 10;

/** Text split into messages; files go on the last one, after the text they belong to. */
function toMessages(text: string, files: AttachmentPayload[] = []): Outgoing[] {
  const chunks = chunkMessage(text, MESSAGE_MAX_CHARS);
  if (chunks.length === 0) chunks.push(`(${NOTHING_TO_SAY})`);
  const out: Outgoing[] = chunks.map((content) => ({ content, files: [] }));
  for (let i = 0; i < files.length; i += FILES_PER_MESSAGE) {
    const batch = files.slice(i, i + FILES_PER_MESSAGE);
    if (i === 0) out[out.length - 1].files = batch;
    else out.push({ content: ANSWER_NOTES.moreFiles, files: batch });
  }
  return out;
}

export function renderNotice(text: string): Outgoing[] {
  return toMessages(text);
}

/** One command as a Discord block: a status line, then `$ cmd` and its output in one code block. */
function runBlock(run: RunResult, index: number, total: number): { text: string; file?: AttachmentPayload } {
  const view = describeRun(run);
  const name = total === 1 ? "output.txt" : `output-${index + 1}.txt`;
  const short = headTail(view.output, INLINE_OUTPUT_MAX_CHARS, ANSWER_NOTES.fullOutputIn(name));
  const body = view.output ? `${view.command}\n${short.text}` : `${view.command}\n${ANSWER_NOTES.noOutput}`;
  const status = `${view.ok ? "✅" : "❌"} **${view.status}**`;
  const text = `${status}\n${codeBlock(body)}`;
  if (short.omittedChars === 0) return { text };
  return { text, file: { attachment: Buffer.from(`${view.command}\n${view.output}\n`, "utf8"), name } };
}

/**
 * An answer's parts, in the order both layouts show them (classic here,
 * Components V2 in render-v2.ts): the model's text, a block per command (its
 * whole output as a file when long), the notes (stopped, not run), the
 * proposal with its Run and Skip rows, and proposed facts in a message of
 * their own (its buttons never crowd the commands' rows: 5 at most a message).
 */
export interface AnswerParts {
  text: string;
  runs: string[];
  notes: string[];
  files: AttachmentPayload[];
  proposal?: { content: string; components: RowJson[] };
  facts?: Outgoing;
}

export function answerParts(res: MessageResponse): AnswerParts {
  const runs: string[] = [];
  const files: AttachmentPayload[] = [];
  res.runs.forEach((run, i) => {
    const block = runBlock(run, i, res.runs.length);
    runs.push(block.text);
    if (block.file) files.push(block.file);
  });
  const notes: string[] = [];
  if (res.stopped) notes.push(`⏹️ *${STOPPED_NOTE}*`);
  if (res.skipped?.length) {
    notes.push(`⏭️ ${notRunNote(res, res.skipped.map((c) => `\`${c.replace(/`/g, "'").slice(0, 200)}\``))}`);
  }
  return {
    text: withoutPreviews(cleanModelText(explanationOf(res))),
    runs,
    notes,
    files,
    ...(res.pending?.length ? { proposal: proposalPart(res.pending) } : {}),
    ...(res.facts?.length ? { facts: { ...proposedFactsPart(res.facts), files: [] } } : {}),
  };
}

export function renderMessage(res: MessageResponse): Outgoing[] {
  const parts = answerParts(res);
  const out = toMessages([parts.text, ...parts.runs, ...parts.notes].filter(Boolean).join("\n\n"), parts.files);
  const proposed = parts.proposal ? withProposal(out, parts.proposal) : out;
  return parts.facts ? [...proposed, parts.facts] : proposed;
}

/** The proposal goes last, in the last message when it fits, so its buttons sit under it. */
function withProposal(out: Outgoing[], part: { content: string; components: RowJson[] }): Outgoing[] {
  const last = out[out.length - 1];
  if (last.content.length + 2 + part.content.length <= MESSAGE_MAX_CHARS) {
    return [...out.slice(0, -1), { ...last, content: `${last.content}\n\n${part.content}`, components: part.components }];
  }
  return [...out, { content: part.content.slice(0, MESSAGE_MAX_CHARS), files: [], components: part.components }];
}

export function renderExec(cmd: string, result: ExecResult): Outgoing[] {
  const block = runBlock(runOfExec(cmd, result), 0, 1);
  return toMessages(block.text, block.file ? [block.file] : []);
}

/** The last messages, newest last, as short quotes; ephemeral, so user mentions are fine to show. */
export function renderHistory(messages: DuetMessage[]): Outgoing[] {
  if (messages.length === 0) return toMessages(NO_HISTORY);
  const shown = messages.slice(-HISTORY_SHOWN);
  const lines = shown.map((m) => {
    const who = m.role === "agent" ? "**Duet**" : m.userId && /^\d+$/.test(m.userId) ? `<@${m.userId}>` : "**someone**";
    return `${who} <t:${Math.floor(m.ts / 1000)}:R>\n> ${escapeFences(historySnippet(m.text)) || "(empty)"}`;
  });
  const header = historyTitle(shown.length, messages.length);
  return toMessages([header, ...lines].join("\n"));
}

/** How the commands are typed in Discord: slash-command options, named. */
const DISCORD_SYNTAX = {
  ask: "`/duet ask prompt:`_text_",
  run: "`/duet run command:`_shell_",
  history: "`/duet history`",
  reset: "`/duet reset`",
  stop: "`/duet stop`",
  get: "`/duet get path:`_path_",
  policy: "`/duet policy mode:`_auto|approve_",
  model: "`/duet model name:`_model_",
  repo: "`/duet repo name:`_owner/name_|_unlink_|_sync_",
  pr: "`/duet pr title:`_title_",
  tools: "`/duet tools what:`_add|remove|room on|off_ _name_",
  usage: "`/duet usage`",
  audit: "`/duet audit`",
  schedule: "`/duet schedule when:`_every 2h_ `prompt:`_text_",
  schedules: "`/duet schedules`",
  unschedule: "`/duet unschedule id:`_id_",
  remember: "`/duet remember fact:`_fact_",
  memory: "`/duet memory`",
  forget: "`/duet forget number:`_number_",
  help: "`/duet help`",
};

export function helpText(settings: { network?: string; runPolicy?: "auto" | "approve"; model?: string } = {}): string {
  return [
    HELP_INTRO,
    "",
    ...helpEntries(DISCORD_SYNTAX).map(([syntax, purpose]) => `• ${syntax}: ${purpose}`),
    ...HELP_MORE.discord,
    ...(settingsLines(settings).length ? ["", ...settingsLines(settings)] : []),
  ].join("\n");
}

/** The chat flow's replies as Discord messages. */
export function renderReply(reply: Reply): Outgoing[] {
  switch (reply.kind) {
    case "answer":
      return renderMessage(reply.answer);
    case "ran":
      return renderExec(reply.cmd, reply.result);
    case "history":
      return renderHistory(reply.messages);
    case "reset":
    case "reset-cancelled":
      return renderNotice(resetDoneText(reply));
    case "reset-ask":
      return [{ ...resetAskPart(reply), files: [] }];
    case "fact-decided":
      // Shown by editing the proposal in place (control/memory-click.ts); alone it is one line.
      return renderNotice(factDecidedText(reply));
    case "help":
      return renderNotice(reply.problem ? `${reply.problem}\n\n${helpText(reply)}` : helpText(reply));
    case "policy":
      return renderNotice(renderPolicy(reply.runPolicy, reply.setBy, reply.source));
    case "audit":
      return renderNotice(renderAudit(reply.entries, reply.total));
    case "scheduled":
      return renderNotice(renderScheduled(reply.schedule, reply.user));
    case "schedules":
      return renderNotice(renderSchedules(reply.schedules));
    case "unscheduled":
      return renderNotice(renderUnscheduled(reply.schedule, reply.user));
    case "model":
      return renderNotice(renderModel(reply));
    case "repo":
      return renderNotice(renderRepo(reply));
    case "tools":
      return renderNotice(renderTools(reply));
    case "pr-proposal": {
      const part = prProposalPart(reply.proposal);
      return [{ content: part.content, files: [], components: part.components }];
    }
    case "pr-decided":
      // Shown by editing the proposal in place (control/pr-click.ts); alone it is one line.
      return renderNotice(prDecidedLine(reply.opened ? { opened: reply.opened, by: reply.by } : { skippedBy: reply.by }, NAMING));
    case "pr-no-repo":
      return renderNotice(`📦 ${PR_WORDS.noRepo(REPO_NAMING)}`);
    case "usage":
      return renderNotice(renderUsage(reply.usage));
    case "memory":
      return renderNotice(renderMemory(reply));
    case "refused":
      return renderNotice(`⛔ ${reply.text}`);
    case "decided":
      // Shown by editing the proposal in place (control/approval-click.ts); alone it is one line.
      return renderNotice(decidedText(`<@${reply.approval.decidedBy}>`, reply.approval.decision));
    case "hint":
      return renderNotice(reply.text);
    case "error":
      return renderNotice(`⚠️ ${reply.text}`);
  }
}
