import {
  ANSWER_NOTES,
  chunkMessage,
  cleanModelText,
  decidedText,
  type DuetMessage,
  type ExecResult,
  explanationOf,
  helpEntries,
  HELP_INTRO,
  HELP_MORE,
  historySnippet,
  historyTitle,
  HISTORY_SHOWN,
  type MessageResponse,
  NO_HISTORY,
  NOTHING_TO_SAY,
  notRunNote,
  type Reply,
  runOfExec,
  type RunResult,
  settingsLines,
  STOPPED_NOTE,
  PR_WORDS,
  prDecidedLine,
} from "@duet/shared";
import { proposalBlocks } from "./control/approval-blocks.ts";
import { prProposalBlocks } from "./control/pr-blocks.ts";
import { NAMING, renderAudit, renderMemory, renderModel, renderPolicy, renderRepo, renderTools, renderUsage } from "./control/render-control.ts";
import { factDecidedText, proposedFactBlocks, renderResetAsk, renderResetDone } from "./control/memory-blocks.ts";
import { renderScheduled, renderSchedules, renderUnscheduled } from "./control/render-schedules.ts";
import { escapeSlack, markdownToMrkdwn } from "./mrkdwn.ts";
import { FALLBACK_CHARS, type Rendered, renderNotice } from "./rendered.ts";
import { context, renderRun, SECTION_MAX_CHARS, section } from "./run-block.ts";
import type { Block, Upload } from "./slack-api.ts";

export { renderNotice, type Rendered };

/**
 * Slack messages from Worker answers: the model's explanation as mrkdwn
 * sections (split without breaking code fences), then one section per command,
 * within Slack's limits (50 blocks, 3,000 characters a section). What does not
 * fit goes to the thread as files.
 */

/** Slack refuses a message with more blocks than this. */
export const MAX_BLOCKS = 50;

export interface RenderOptions {
  /** Blocks the caller needs for itself (a header line); the rest is the answer's. */
  reserveBlocks?: number;
  /** Where uploaded files end up, for the "see the file" note. */
  where?: string;
  /** The room the answer belongs to, named by its Run and Skip buttons. */
  room?: string;
}

export function renderAnswer(res: MessageResponse, opts: RenderOptions = {}): Rendered {
  const explanation = cleanModelText(explanationOf(res));
  const skipped = (res.skipped ?? []).map((c) => `\`${escapeSlack(c).replace(/`/g, "'")}\``);
  const notes = skipped.length ? [context(notRunNote(res, skipped).slice(0, 2900))] : [];
  const proposals = opts.room ? [...proposalBlocks(res.pending ?? [], opts.room), ...proposedFactBlocks(res.facts ?? [], opts.room)] : [];
  if (res.stopped) notes.push(context(`:black_square_for_stop: _${STOPPED_NOTE}_`));
  return assemble(explanation, res.runs, [...proposals, ...notes], opts);
}

export function renderExec(cmd: string, result: ExecResult, opts: RenderOptions = {}): Rendered {
  return assemble("", [runOfExec(cmd, result)], [], opts);
}

function assemble(explanation: string, runs: RunResult[], notes: Block[], opts: RenderOptions): Rendered {
  const where = opts.where ?? "in this thread";
  const uploads: Upload[] = [];
  const runBlocks = runs.map((run, i) => {
    const r = renderRun(run, i, where);
    if (r.upload) uploads.push(r.upload);
    return r.block;
  });
  const budget = MAX_BLOCKS - (opts.reserveBlocks ?? 0) - runBlocks.length - notes.length;
  let textBlocks: Block[] = [];
  if (explanation) {
    const chunks = chunkMessage(markdownToMrkdwn(explanation), SECTION_MAX_CHARS).filter((c) => c.trim());
    textBlocks = chunks.map(section);
    if (textBlocks.length > budget) {
      // A very long answer: keep what fits and hand over the whole of it as a file.
      textBlocks = textBlocks.slice(0, Math.max(0, budget - 1));
      textBlocks.push(context(`_${ANSWER_NOTES.longerThanMessage("Slack", "`duet-answer.md`", where)}_`));
      uploads.push({ filename: "duet-answer.md", title: ANSWER_NOTES.fullAnswerTitle, content: explanation });
    }
  }
  let blocks = [...textBlocks, ...runBlocks, ...notes];
  if (blocks.length === 0) blocks = [section(`_${NOTHING_TO_SAY}_`)];
  // More commands than blocks can only happen with a huge per-reply cap; the files still have everything.
  blocks = blocks.slice(0, MAX_BLOCKS - (opts.reserveBlocks ?? 0));
  return { text: fallbackText(explanation, runs), blocks, uploads };
}

/** Plain words for notifications: no Markdown markers, Slack's control characters escaped. */
function fallbackText(explanation: string, runs: RunResult[]): string {
  const firstLine = (explanation.split("\n").find((l) => l.trim() && !l.trim().startsWith("```")) ?? "")
    .replace(/\*\*|__|~~|`/g, "")
    .replace(/\s+/g, " ")
    .trim();
  if (firstLine) return escapeSlack(firstLine.length > FALLBACK_CHARS ? `${firstLine.slice(0, FALLBACK_CHARS - 1)}…` : firstLine);
  if (runs.length === 1) return escapeSlack(ANSWER_NOTES.ranOne(runs[0].cmd.replace(/\s+/g, " ").slice(0, 100)));
  if (runs.length > 1) return ANSWER_NOTES.ranMany(runs.length);
  return ANSWER_NOTES.answered;
}

/** `/duet history`: the room's recent messages, newest last, for the caller only. */
export function renderHistory(messages: DuetMessage[]): Rendered {
  if (messages.length === 0) return { text: NO_HISTORY, blocks: [section(NO_HISTORY)], uploads: [] };
  const shown = messages.slice(-HISTORY_SHOWN);
  const lines = shown.map((m) => {
    const who = m.role === "agent" ? "*Duet*" : m.userId ? `<@${m.userId.replace(/[^A-Za-z0-9]/g, "")}>` : "*someone*";
    return `${who}: ${escapeSlack(historySnippet(m.text))}`;
  });
  const title = historyTitle(shown.length, messages.length);
  const chunks = chunkMessage([`*${title}*`, ...lines].join("\n"), SECTION_MAX_CHARS);
  return { text: title, blocks: chunks.slice(0, MAX_BLOCKS).map(section), uploads: [] };
}

/** Characters of the question echoed above a slash command's answer, so the channel knows what was asked. */
const ECHO_CHARS = 300;

/** How the commands are typed in Slack. */
const SLACK_SYNTAX = {
  ask: "`/duet ask` _question_",
  run: "`/duet run` _command_",
  history: "`/duet history`",
  reset: "`/duet reset`",
  stop: "`/duet stop`",
  get: "`/duet get` _path_",
  policy: "`/duet policy` [`auto`|`approve`]",
  model: "`/duet model` [_name_]",
  repo: "`/duet repo` [_owner/name_[`@`_branch_] | `unlink` | `sync`]",
  pr: "`/duet pr` [_title_]",
  tools: "`/duet tools` [`add` _name_ _url_ [_Header_`=`_value_…] | `remove` _name_ | `room on`|`off` _name_]",
  usage: "`/duet usage`",
  audit: "`/duet audit`",
  schedule: "`/duet schedule` _when_ _question_",
  schedules: "`/duet schedules`",
  unschedule: "`/duet unschedule` _id_",
  remember: "`/duet remember` _fact_",
  memory: "`/duet memory`",
  forget: "`/duet forget` _number_",
  help: "`/duet help`",
};

export function helpText(settings: { network?: string; runPolicy?: "auto" | "approve"; model?: string } = {}): string {
  return [
    HELP_INTRO,
    ...helpEntries(SLACK_SYNTAX).map(([syntax, purpose]) => `• ${syntax}: ${purpose}`),
    ...HELP_MORE.slack,
    ...settingsLines(settings).map(escapeSlack),
  ].join("\n");
}

/**
 * Where a reply is shown: "thread" (a mention's thread, a DM) or "slash" (a
 * slash command's response in the channel, which names who asked, since it has
 * no question above it).
 */
export type ReplyPlace = "thread" | "slash";

export function renderReply(reply: Reply, opts: { place: ReplyPlace; room?: string }): Rendered {
  const slash = opts.place === "slash";
  const base = { room: opts.room, ...(slash ? { reserveBlocks: 1, where: "in this channel" } : {}) };
  switch (reply.kind) {
    case "answer": {
      const r = renderAnswer(reply.answer, base);
      return slash ? { ...r, blocks: [askedLine(reply.user, reply.question), ...r.blocks] } : r;
    }
    case "ran": {
      const r = renderExec(reply.cmd, reply.result, base);
      return slash ? { ...r, blocks: [context(ANSWER_NOTES.ranInSandbox(`<@${reply.user}>`)), ...r.blocks] } : r;
    }
    case "history":
      return renderHistory(reply.messages);
    case "reset":
    case "reset-cancelled":
      return renderResetDone(reply);
    case "reset-ask":
      return renderResetAsk(reply, opts.room);
    case "fact-decided":
      // Shown by editing the proposal's blocks (memory-click.ts); alone it is one line.
      return renderNotice(factDecidedText(reply));
    case "help":
      return renderNotice((reply.problem ? `:information_source: ${escapeSlack(reply.problem)}\n\n` : "") + helpText(reply));
    case "policy":
      return renderPolicy(reply.runPolicy, reply.setBy, reply.source);
    case "audit":
      return renderAudit(reply.entries, reply.total);
    case "scheduled":
      return renderScheduled(reply.schedule, reply.user);
    case "schedules":
      return renderSchedules(reply.schedules);
    case "unscheduled":
      return renderUnscheduled(reply.schedule, reply.user);
    case "model":
      return renderModel(reply);
    case "repo":
      return renderRepo(reply);
    case "tools":
      return renderTools(reply);
    case "pr-proposal":
      return prProposalBlocks(reply.proposal, reply.room);
    case "pr-decided":
      // Shown by editing the proposal's blocks (pr-click.ts); alone it is one line.
      return renderNotice(prDecidedLine(reply.opened ? { opened: reply.opened, by: reply.by } : { skippedBy: reply.by }, NAMING));
    case "pr-no-repo":
      return renderNotice(`:package: ${PR_WORDS.noRepo(NAMING)}`);
    case "usage":
      return renderUsage(reply.usage);
    case "memory":
      return renderMemory(reply);
    case "refused":
      return renderNotice(`:no_entry: ${reply.text}`);
    case "decided":
      // Shown by editing the proposal's blocks (approval-click.ts); alone it is one line.
      return renderNotice(decidedText(`<@${reply.approval.decidedBy}>`, reply.approval.decision));
    case "hint":
      return renderNotice(reply.text);
    case "error":
      return renderNotice(`:warning: ${escapeSlack(reply.text)}`);
  }
}

/** Above a slash command's answer (live or whole): who asked what, since no question stands above it in the channel. */
export function askedLine(user: string, question: string): Block {
  const flat = question.replace(/\s+/g, " ").trim();
  return context(ANSWER_NOTES.asked(`<@${user}>`, escapeSlack(flat.length > ECHO_CHARS ? `${flat.slice(0, ECHO_CHARS - 1)}…` : flat)));
}
