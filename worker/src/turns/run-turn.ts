import { DuetError, errorName, type Span, type Attachment, type ModelPrice, REPLY_SUMMARY_CHARS, MODEL_CONTEXT_MESSAGES, type PendingApproval, type ProposedFact, type RunResult, type TurnStreamEvent } from "@duet/shared";
import { readModelStream, type ModelAnswer } from "../live/read-model.ts";
import { StreamRedactor } from "../live/redact-stream.ts";
import { buildContext } from "../model/prompt.ts";
import { speakerOf, type Speaker } from "../model/speakers.ts";
import { streamModelText } from "../model/stream.ts";
import type { ChatModel } from "../model/types.ts";
import { readModelText, type ReadReply } from "../reply/reader.ts";
import { buildReply } from "../reply/reply-text.ts";
import type { AnsweredTurn, StoredAnswer, TurnUsage } from "../storage/turn-types.ts";
import { runCommand, unknownRun, type CommandDeps } from "./run-command.ts";
import { costMicros } from "../usage/usage-entries.ts";
import { offerable } from "../memory/proposed-facts.ts";

/** What a turn needs beyond a command's needs: the model, and how it is followed. */
export interface TurnDeps extends CommandDeps {
  model: () => ChatModel;
  /** Lines about the files people shared between two questions (received after `after`, up to `until`). */
  sharedFiles?: (after: number, until: number) => string[];
  /** The room's pinned facts as the model reads them, one line each. */
  pinnedFacts?: () => string[];
  /** The room's summary of its conversation before the window, or null when it has none. */
  summary?: () => string | null;
  /** Earlier turns recalled for `question`, older than turn `beforeSeq` (the window's oldest), as the model reads them. */
  recall?: (question: string, beforeSeq: number) => string[];
  /** A workspace file the model attached, as the answer lists it, or the note that says why it is not there. */
  attach?: (path: string) => Promise<Attachment | string>;
  /** Wakes the room's sandbox ahead of its first command (no-op when it is known to be warm). */
  warmSandbox?: () => void;
  /** False once the room was deleted during this turn: nothing more may run. */
  stillCurrent?: () => boolean;
  /** Aborted (with a TurnStopped) when someone stops the turn. */
  stop?: AbortSignal;
  /**
   * Set when the room's run policy is `approve`: the model's commands are
   * handed here (as written) to wait for a person, and none is run.
   */
  propose?: (cmds: string[]) => PendingApproval[];
  /** Keeps the facts the model proposed (`<remember>`, checked and redacted) for a person to pin or dismiss; never pins one. */
  proposeFacts?: (facts: string[]) => ProposedFact[];
  /** The turn as it happens (model text, each command's start and end): the live stream's events. */
  onEvent?: (e: TurnStreamEvent) => void;
  /** Someone follows this turn as it happens: only then is the model asked to stream its text. */
  live?: boolean;
  /**
   * Where the workspace must be saved to outlive its sandbox: called once the
   * turn's commands ran (`changed`: some did), before the answer is made;
   * answers null, or the note that says the save failed.
   */
  saveWorkspace?: (changed: boolean) => Promise<string | null>;
  /**
   * The room's repository before the model is asked: the system prompt's
   * line about it and a note for the answer (a checkout made or failed now).
   */
  repo?: (signal: AbortSignal) => Promise<RepoForTurn>;
}

/** The room's repository as a turn starts: the prompt's line, a note for the answer, and the setup command to run first (or null). */
export interface RepoForTurn {
  prompt: string | null;
  note: string | null;
  /** The repository's `.duet/setup.sh`, new or changed since it last ran: run before the model's commands, under the run policy. */
  setup: string | null;
}

/** What a turn starts from: the question, the progress a restart left (or null), and the turns its context is built from. */
export interface TurnInput {
  /** The person's text, redacted. */
  question: string;
  /** When the question arrived (ms): files shared since the previous question are told with it. */
  receivedAt: number;
  /** Who asked it, as the model's context names them. */
  asker?: Speaker;
  /** The progress stored before a restart, as JSON, or null for a new turn. */
  progress: string | null;
  /** The newest answered turns, oldest first. */
  recent: AnsweredTurn[];
}

/**
 * What survives a restart mid-turn: the model's text and the commands already
 * finished. Stored as it is here, so it holds redacted text only: a command
 * that redaction changed cannot be run from it, and is listed in `secret`.
 */
interface Progress {
  modelText: string;
  runs: RunResult[];
  /** Index of the command that was running, if any. */
  running?: number;
  /** Indexes of the commands that held a secret (so their stored text is not what the model wrote). */
  secret?: number[];
  /** The repository's setup command, run before the model's (not in its text, so kept here for a resume). */
  setup?: string;
}

export const UNKNOWN_OUTCOME = "outcome unknown: Duet restarted while this command was running, so it was not run again";
/** A command cut off by a restart before it ran, whose text held a secret: Duet keeps no secret at rest, so it cannot run it now. */
export const SECRET_LOST = "not run: Duet restarted before this command ran, and it held a secret, which Duet does not keep at rest";
/** The last line of a stopped answer, so the history (and the model's next context) says it was cut short. */
export const STOPPED_NOTE = "[stopped before it finished]";

/** A turn's answer and the model's text it came from (redacted, <run> tags kept). */
export interface TurnResult {
  answer: StoredAnswer;
  modelText: string;
}

/**
 * Asks the model, streaming its text out as it is written, then runs its
 * commands in order (or, under `approve`, proposes them and runs none).
 * Before each command it yields the turn's progress (redacted JSON) for the
 * caller to store, and goes on when asked for the next step, so a restart
 * resumes after the last finished command and reports the one that was
 * running as unknown; the stream itself writes nothing. Returns the answer.
 * A stop ends the turn where it is: the model request is aborted, a running
 * command killed, no further command started, and the answer is what was
 * written and run before, marked as stopped.
 */
export async function* runTurn(deps: TurnDeps, input: TurnInput): AsyncGenerator<string, TurnResult, void> {
  const { config, redact } = deps;
  const stop = deps.stop ?? new AbortController().signal;
  const emit = deps.onEvent ?? (() => undefined);
  const resumed = input.progress ? (JSON.parse(input.progress) as Progress) : null;
  let parsed: ReadReply;
  let stopped = false;
  let progress: Progress;
  let usage: TurnUsage | undefined;
  let repoNote: string | null = null;

  if (!resumed) {
    // The first turn after a link checks the repository out before the model is asked, so its commands find repo/.
    const repo = (await deps.repo?.(stop)) ?? { prompt: null, note: null, setup: null };
    repoNote = repo.note;
    // The sandbox may be cold: wake it while the model thinks, so the start-up overlaps inference.
    if (config.MAX_RUNS_PER_REPLY > 0 && config.SANDBOX_PREWARM === "on" && !deps.propose) deps.warmSandbox?.();
    const read = await askModel(deps, input, stop, emit, repo.prompt);
    usage = read.usage;
    parsed = withSetup(read.reply, repo.setup);
    stopped = read.stopped;
    const secret = parsed.commands.flatMap((cmd, i) => (redact(cmd) === cmd ? [] : [i]));
    progress = { modelText: redact(read.modelText), runs: [], ...(secret.length ? { secret } : {}), ...(repo.setup ? { setup: repo.setup } : {}) };
  } else {
    // Resumed after a restart: the text was written before; it goes out whole.
    progress = resumed;
    parsed = withSetup(readModelText(progress.modelText, config.MAX_RUNS_PER_REPLY), progress.setup ?? null);
    emitWhole(parsed, redact, emit);
  }

  ensureCurrent(deps);
  // A turn resumed after its first command started was accepted to run; otherwise, under `approve`, nothing runs.
  const started = progress.runs.length > 0 || progress.running !== undefined;
  // Calls of read-only tools run like `auto` commands: an answer made only of them waits for nobody.
  const needsApproval = parsed.commands.some((cmd) => !deps.tools?.readOnly(cmd));
  const pending = deps.propose && !started && !stopped && needsApproval ? deps.propose(parsed.commands) : [];
  const commands = pending.length ? [] : parsed.commands;
  for (let i = progress.runs.length; i < commands.length && !stopped; i++) {
    const cmd = commands[i];
    if (progress.running === i) {
      // It may have run, fully or partly: running it again could repeat a side effect.
      progress.runs.push(unknownRun(redact(cmd), UNKNOWN_OUTCOME));
      continue;
    }
    if (resumed && progress.secret?.includes(i)) {
      progress.runs.push(unknownRun(redact(cmd), SECRET_LOST));
      continue;
    }
    if (stop.aborted) {
      stopped = true;
      break;
    }
    // A DELETE while the model thought (or a command ran) means the sandbox is a new, clean one: run nothing in it.
    ensureCurrent(deps);
    progress.running = i;
    yield JSON.stringify(progress);
    ensureCurrent(deps);
    emit({ event: "run-start", data: { index: i, cmd: redact(cmd) } });
    const run = await runCommand(deps, cmd, stop);
    progress.runs.push(run);
    progress.running = undefined;
    emit({ event: "run-end", data: { index: i, ...summaryOf(run) } });
    stopped = stop.aborted;
  }

  const skipped = stopped ? [] : parsed.skipped.map(redact);
  // Attached after the commands ran (they may have made the file); nothing when stopped or waiting for approval.
  const attachments: Attachment[] = [];
  const attachNotes: string[] = [];
  if (!stopped && !pending.length && deps.attach) {
    for (const path of parsed.attachments) {
      const found = await deps.attach(path);
      if (typeof found === "string") attachNotes.push(found);
      else attachments.push(found);
    }
  }
  // Saved before the answer is made, so a save that failed is said in it (not into a room deleted meanwhile).
  const saveNote = deps.stillCurrent?.() === false ? null : ((await deps.saveWorkspace?.(progress.runs.length > 0)) ?? null);
  // Offered once the turn is answered, not when stopped; the model's text is redacted before a fact is kept.
  const proposal = stopped ? { facts: [], notes: [] } : offerable(parsed.facts.map(redact));
  const facts = proposal.facts.length && deps.proposeFacts ? deps.proposeFacts(proposal.facts) : [];
  const notes = [...(repoNote ? [repoNote] : []), ...attachNotes, ...proposal.notes, ...(saveNote ? [saveNote] : [])];
  const built = buildReply(parsed.explanation, progress.runs, skipped, pending.map((p) => p.cmd));
  const reply = notes.length ? `${built}\n\n${notes.map((n) => `_${n}_`).join("\n")}`.trim() : built;
  const answer: StoredAnswer = {
    reply: redact(stopped ? `${reply}\n\n${STOPPED_NOTE}`.trim() : reply),
    // A fact that could not be offered is said where the bots show the model's words, beside the ones offered.
    explanation: redact(proposal.notes.length ? `${parsed.explanation}\n\n${proposal.notes.map((n) => `_${n}_`).join("\n")}`.trim() : parsed.explanation),
    runs: progress.runs,
    ...(skipped.length ? { skipped } : {}),
    ...(stopped ? { stopped: true } : {}),
    ...(pending.length ? { pending } : {}),
    ...(attachments.length ? { attachments } : {}),
    // Only an answer whose commands ran may have changed files; a stopped or waiting one proposes nothing.
    ...(parsed.pr !== null && !stopped && !pending.length && progress.runs.length ? { pr: parsed.pr ? { title: redact(parsed.pr) } : {} } : {}),
    ...(facts.length ? { facts } : {}),
    ...(usage ? { usage } : {}),
  };
  // Progress stored before it was kept redacted may hold the model's raw text.
  return { answer, modelText: resumed ? redact(progress.modelText) : progress.modelText };
}

/** The model's answer to the question, its text going out as it is read (redacted before any piece of a secret leaves). */
async function askModel(
  deps: TurnDeps,
  input: TurnInput,
  stop: AbortSignal,
  emit: (e: TurnStreamEvent) => void,
  repoLine: string | null,
): Promise<ModelAnswer & { usage: TurnUsage }> {
  const { config } = deps;
  // The model sees its own earlier words with their <run> tags and each result as a separate data message.
  const recent = input.recent.map((t) => ({
    userText: t.question,
    speaker: speakerOf(t),
    modelText: t.modelText,
    shownText: t.reply,
    runs: t.runs,
    ...(t.skipped ? { skipped: t.skipped } : {}),
  }));
  const previousAt = input.recent.at(-1)?.receivedAt ?? 0;
  // The window holds a turn's question and answer for each two messages: what is older than its oldest turn may be recalled.
  const windowFrom = (input.recent.at(-Math.ceil(MODEL_CONTEXT_MESSAGES / 2)) ?? input.recent[0])?.seq ?? Number.MAX_SAFE_INTEGER;
  const recalled = deps.recall?.(input.question, windowFrom) ?? [];
  const toolsLine = await toolsSection(deps);
  const systemLine = [repoLine, toolsLine].filter(Boolean).join("\n\n") || null;
  const prompt = buildContext(recent, { text: input.question, speaker: input.asker }, MODEL_CONTEXT_MESSAGES, deps.sharedFiles?.(previousAt, input.receivedAt) ?? [], deps.pinnedFacts?.() ?? [], systemLine, recalled, deps.summary?.() ?? null);
  const model = deps.model();
  // Unknown until the provider says: one that reports nothing leaves the counts null, never zero.
  const usage: TurnUsage = { model: model.name, inputTokens: null, outputTokens: null };
  const span = deps.span?.child(`chat ${model.name}`, {
    kind: "client",
    attributes: { "gen_ai.operation.name": "chat", "gen_ai.request.model": model.name, "gen_ai.provider.name": config.offered.get(model.name)?.provider ?? config.MODEL_PROVIDER },
  });
  const pieces = streamModelText(model, prompt, {
    signal: stop,
    timeoutMs: config.MODEL_TIMEOUT_MS,
    stream: deps.live === true,
    maxTokens: config.MODEL_MAX_TOKENS,
    temperature: config.MODEL_TEMPERATURE,
    onUsage: (u) => Object.assign(usage, u),
    onFinish: (reason) => span?.set({ "gen_ai.response.finish_reasons": reason }),
  });
  try {
    return await readAnswer(deps, span ? firstPieceTimed(pieces, span) : pieces, usage, stop, emit);
  } catch (err) {
    span?.fail(errorName(err));
    throw err;
  } finally {
    span?.set({ "gen_ai.usage.input_tokens": usage.inputTokens, "gen_ai.usage.output_tokens": usage.outputTokens, "gen_ai.stream": deps.live === true }).end();
  }
}

/** The model's pieces, noting on the span how long the first one took: what a person waits before any text. */
async function* firstPieceTimed(pieces: AsyncGenerator<string, void>, span: Span): AsyncGenerator<string, void> {
  const asked = Date.now();
  let first = true;
  for await (const piece of pieces) {
    if (first) span.set({ "duet.model.time_to_first_token_ms": Date.now() - asked });
    first = false;
    yield piece;
  }
}

/** The model's text read to its end, going out as it is read when someone follows the turn live. */
async function readAnswer(
  deps: TurnDeps,
  pieces: AsyncGenerator<string, void>,
  usage: TurnUsage,
  stop: AbortSignal,
  emit: (e: TurnStreamEvent) => void,
): Promise<ModelAnswer & { usage: TurnUsage }> {
  const { config } = deps;
  const priced = () => withCost(usage, config.offered.get(usage.model)?.price);
  if (!deps.live) {
    // Asked for whole, the answer is read whole and its text goes out in one piece (to a retry that joined the turn).
    const read = await readModelStream(pieces, config.MAX_RUNS_PER_REPLY, () => undefined, stop);
    emitWhole(read.reply, deps.redact, emit);
    return { ...read, usage: priced() };
  }
  const shown = new StreamRedactor(deps.redact, config.secrets);
  // A word that went out whole (a blank follows it, not yet written) is marked, so a client shows it without waiting for more.
  const text = (delta: string, wordEnd: boolean) => {
    if (delta) emit({ event: "text", data: wordEnd ? { delta, wordEnd } : { delta } });
  };
  const read = await readModelStream(pieces, config.MAX_RUNS_PER_REPLY, (delta, blank) => text(shown.push(delta, blank), blank !== "" && shown.allOut), stop);
  text(shown.finish(), false);
  return { ...read, usage: priced() };
}

/** The room's tools as the system prompt lists them; a store that cannot be asked leaves them out rather than failing the turn. */
async function toolsSection(deps: TurnDeps): Promise<string | null> {
  try {
    return (await deps.tools?.prompt()) ?? null;
  } catch (err) {
    console.error("the room's tools could not be listed", err);
    return null;
  }
}

/** The call's usage with its cost at the model's price today; unpriced, or with tokens unknown, it stays as it was. */
function withCost(usage: TurnUsage, price: ModelPrice | undefined): TurnUsage {
  if (!price || usage.inputTokens === null || usage.outputTokens === null) return usage;
  return { ...usage, costMicros: costMicros(price, usage.inputTokens, usage.outputTokens) };
}

/** The model's reply with the repository's setup command first, when there is one. */
function withSetup(reply: ReadReply, setup: string | null): ReadReply {
  return setup ? { ...reply, commands: [setup, ...reply.commands] } : reply;
}

/** The model's explanation, redacted, as one text event. */
function emitWhole(reply: ReadReply, redact: (text: string) => string, emit: (e: TurnStreamEvent) => void): void {
  if (reply.explanation) emit({ event: "text", data: { delta: redact(reply.explanation) } });
}

/** A command's outcome as the live stream shows it: output cut to the reply's summaries (the full output comes with `done`). */
function summaryOf(run: RunResult): RunResult {
  const cut = run.stdout.length > REPLY_SUMMARY_CHARS || run.stderr.length > REPLY_SUMMARY_CHARS;
  return { ...run, stdout: run.stdout.slice(0, REPLY_SUMMARY_CHARS), stderr: run.stderr.slice(0, REPLY_SUMMARY_CHARS), truncated: run.truncated || cut };
}

function ensureCurrent(deps: TurnDeps): void {
  if (deps.stillCurrent && !deps.stillCurrent()) {
    throw new DuetError("not_found", "this room was deleted while the message was being answered");
  }
}
