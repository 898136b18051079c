import { DuetError, type Attachment, REPLY_SUMMARY_CHARS, RUN_OUTPUT_MAX_BYTES, MODEL_CONTEXT_MESSAGES, type PendingApproval, type RunResult, type TurnStreamEvent } from "@duet/shared";
import type { WorkerConfig } from "../config.ts";
import { readModelStream, type ModelAnswer } from "../live/read-model.ts";
import { StreamRedactor } from "../live/redact-stream.ts";
import { buildContext } from "../model/prompt.ts";
import { streamModelText } from "../model/stream.ts";
import type { ChatModel } from "../model/types.ts";
import { readModelText, type ReadReply } from "../reply/reader.ts";
import { buildReply, capBytes } from "../reply/reply-text.ts";
import type { SandboxExecutor } from "../sandbox/types.ts";
import type { LedgerTurn, StoredAnswer, TurnLedger } from "./turn-ledger.ts";

/** What a command needs: the room's sandbox and the redaction for what comes back. */
export interface CommandDeps {
  roomId: string;
  config: WorkerConfig;
  /** Null when the sandbox is not configured; commands then fail with a clear message. */
  executor: SandboxExecutor | null;
  executorProblem?: string;
  redact: (text: string) => string;
}

/** What a turn needs beyond that: the ledger for its progress and the model. */
export interface TurnDeps extends CommandDeps {
  ledger: TurnLedger;
  model: () => ChatModel;
  /** Lines about the files people shared between two questions (received after `after`, up to `until`). */
  sharedFiles?: (after: number, until: number) => string[];
  /** A workspace file the model attached, as the answer lists it, or the note that says why it is not there. */
  attach?: (path: string) => Promise<Attachment | string>;
  /** Wakes the room's sandbox ahead of its first command (no-op when it is known to be warm). */
  warmSandbox?: () => void;
  /** False once the room was deleted during this turn: nothing more may run or be written. */
  stillCurrent?: () => boolean;
  /** Aborted (with a TurnStopped) when someone stops the turn. */
  stop?: AbortSignal;
  /**
   * Set when the room's run policy is `approve`: the model's commands are
   * handed here (as written) to wait for a person, and none is run.
   */
  propose?: (cmds: string[]) => PendingApproval[];
  /** The turn as it happens (model text, each command's start and end): the live stream's events. */
  onEvent?: (e: TurnStreamEvent) => void;
  /** Someone follows this turn as it happens: only then is the model asked to stream its text. */
  live?: boolean;
}

/** What survives a restart mid-turn: the model's text and the commands already finished. */
interface Progress {
  modelText: string;
  runs: RunResult[];
  /** Index of the command that was running, if any. */
  running?: number;
}

export const UNKNOWN_OUTCOME = "outcome unknown: Duet restarted while this command was running, so it was not run again";
/** The last line of a stopped answer, so the history (and the model's next context) says it was cut short. */
export const STOPPED_NOTE = "[stopped before it finished]";

/** A turn's answer and the model's text it came from (redacted, <run> tags kept). */
export interface TurnResult {
  answer: StoredAnswer;
  modelText: string;
}

/**
 * Asks the model, streaming its text out as it is written, then runs its
 * commands in order (or, under `approve`, proposes them and runs none). Before each command the progress (the model's text, the
 * results so far) is stored in the turn's row, so a restart resumes after the
 * last finished command and reports the one that was running as unknown; the
 * stream itself writes nothing. A stop ends the turn where it is: the model
 * request is aborted, a running command killed, no further command started,
 * and the answer is what was written and run before, marked as stopped.
 */
export async function runTurn(deps: TurnDeps, turn: LedgerTurn): Promise<TurnResult> {
  const { config, ledger } = deps;
  const stop = deps.stop ?? new AbortController().signal;
  const emit = deps.onEvent ?? (() => undefined);
  let progress: Progress | null = turn.progress ? (JSON.parse(turn.progress) as Progress) : null;
  let parsed: ReadReply;
  let stopped = false;

  if (!progress) {
    // The sandbox may be cold: wake it while the model thinks, so the start-up overlaps inference.
    if (config.MAX_RUNS_PER_REPLY > 0 && config.SANDBOX_PREWARM === "on" && !deps.propose) deps.warmSandbox?.();
    // The model sees its own earlier words with their <run> tags and each result as a separate data message.
    const recent = ledger.recentTurns(MODEL_CONTEXT_MESSAGES / 2).map((t) => ({
      userText: t.question,
      modelText: t.modelText,
      shownText: t.reply,
      runs: t.runs,
      ...(t.skipped ? { skipped: t.skipped } : {}),
    }));
    const previousAt = ledger.recentTurns(1)[0]?.receivedAt ?? 0;
    const prompt = buildContext(recent, turn.question, MODEL_CONTEXT_MESSAGES, deps.sharedFiles?.(previousAt, turn.receivedAt) ?? []);
    const pieces = streamModelText(deps.model(), prompt, {
      signal: stop,
      timeoutMs: config.MODEL_TIMEOUT_MS,
      stream: deps.live === true,
      maxTokens: config.MODEL_MAX_TOKENS,
      temperature: config.MODEL_TEMPERATURE,
    });
    let read: ModelAnswer;
    if (deps.live) {
      // A secret the model writes is redacted before any piece of it goes out.
      const shown = new StreamRedactor(deps.redact, deps.config.secrets);
      const text = (delta: string) => {
        if (delta) emit({ event: "text", data: { delta } });
      };
      read = await readModelStream(pieces, config.MAX_RUNS_PER_REPLY, (delta) => text(shown.push(delta)), stop);
      text(shown.finish());
    } else {
      // Asked for whole, the answer is read whole and its text goes out in one piece (to a retry that joined the turn).
      read = await readModelStream(pieces, config.MAX_RUNS_PER_REPLY, () => undefined, stop);
      emitWhole(read.reply, deps.redact, emit);
    }
    progress = { modelText: read.modelText, runs: [] };
    parsed = read.reply;
    stopped = read.stopped;
  } else {
    // Resumed after a restart: the text was written before; it goes out whole.
    parsed = readModelText(progress.modelText, config.MAX_RUNS_PER_REPLY);
    emitWhole(parsed, deps.redact, emit);
  }

  ensureCurrent(deps);
  // A turn resumed after its first command started was accepted to run; otherwise, under `approve`, nothing runs.
  const started = progress.runs.length > 0 || progress.running !== undefined;
  const pending = deps.propose && !started && !stopped && parsed.commands.length ? deps.propose(parsed.commands) : [];
  const commands = pending.length ? [] : parsed.commands;
  for (let i = progress.runs.length; i < commands.length && !stopped; i++) {
    const cmd = commands[i];
    if (progress.running === i) {
      // It may have run, fully or partly: running it again could repeat a side effect.
      progress.runs.push({ cmd: deps.redact(cmd), exitCode: null, stdout: "", stderr: "", truncated: false, durationMs: 0, error: UNKNOWN_OUTCOME });
      continue;
    }
    if (stop.aborted) {
      stopped = true;
      break;
    }
    // A DELETE while the model thought (or a command ran) means the sandbox is a new, clean one: run nothing in it.
    ensureCurrent(deps);
    progress.running = i;
    ledger.markStarted(turn, JSON.stringify(progress));
    emit({ event: "run-start", data: { index: i, cmd: deps.redact(cmd) } });
    const run = await runCommand(deps, cmd, stop);
    progress.runs.push(run);
    progress.running = undefined;
    emit({ event: "run-end", data: { index: i, ...summaryOf(run) } });
    stopped = stop.aborted;
  }

  const skipped = stopped ? [] : parsed.skipped.map(deps.redact);
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
  const built = buildReply(parsed.explanation, progress.runs, skipped, pending.map((p) => p.cmd));
  const reply = attachNotes.length ? `${built}\n\n${attachNotes.map((n) => `_${n}_`).join("\n")}`.trim() : built;
  const answer: StoredAnswer = {
    reply: deps.redact(stopped ? `${reply}\n\n${STOPPED_NOTE}`.trim() : reply),
    explanation: deps.redact(parsed.explanation),
    runs: progress.runs,
    ...(skipped.length ? { skipped } : {}),
    ...(stopped ? { stopped: true } : {}),
    ...(pending.length ? { pending } : {}),
    ...(attachments.length ? { attachments } : {}),
  };
  return { answer, modelText: deps.redact(progress.modelText) };
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

/**
 * The one place a command reaches the sandbox. The sandbox gets the command
 * exactly as written; what comes back (the command in `cmd`, its output) is
 * redacted, since it is shown in chat and stored.
 */
export async function runCommand(deps: CommandDeps, cmd: string, stop?: AbortSignal): Promise<RunResult> {
  const shown = deps.redact(cmd);
  if (!deps.executor) {
    return { cmd: shown, exitCode: null, stdout: "", stderr: "", truncated: false, durationMs: 0, error: deps.executorProblem ?? "no sandbox is configured" };
  }
  const started = Date.now();
  try {
    const raw = await deps.executor.exec(deps.roomId, cmd, deps.config.COMMAND_TIMEOUT_MS, stop);
    const stdout = capBytes(raw.stdout, RUN_OUTPUT_MAX_BYTES);
    const stderr = capBytes(raw.stderr, RUN_OUTPUT_MAX_BYTES);
    return {
      cmd: shown,
      exitCode: raw.exitCode,
      stdout: deps.redact(stdout.text),
      stderr: deps.redact(stderr.text),
      truncated: raw.truncated || stdout.cut || stderr.cut,
      durationMs: raw.durationMs,
    };
  } catch (err) {
    // Killed by a stop: say who stopped it rather than how the connection ended.
    const why = stop?.aborted ? String((stop.reason as Error)?.message ?? "stopped") : (err as Error).message;
    return { cmd: shown, exitCode: null, stdout: "", stderr: "", truncated: false, durationMs: Date.now() - started, error: deps.redact(why) };
  }
}
