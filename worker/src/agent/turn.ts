import { DuetError, RUN_OUTPUT_MAX_BYTES, MODEL_CONTEXT_MESSAGES, type RunResult } from "@duet/shared";
import type { WorkerConfig } from "../config.ts";
import { buildContext } from "../model/prompt.ts";
import { completeWithDeadline } from "../model/provider.ts";
import type { ModelProvider } from "../model/types.ts";
import { readModelText } from "../reply/reader.ts";
import { buildReply, capBytes } from "../reply/reply-text.ts";
import type { SandboxExecutor } from "../sandbox/types.ts";
import type { LedgerTurn, StoredAnswer, TurnLedger } from "./turn-ledger.ts";

/**
 * A turn as a sequence of events (model text, command started, command
 * finished, done), so the JSON answer today and a streamed reply later are two
 * views of one pipeline.
 */
export type TurnEvent =
  | { type: "text"; text: string }
  | { type: "command-start"; index: number; cmd: string }
  | { type: "command-end"; index: number; run: RunResult }
  | { type: "done"; answer: StoredAnswer };

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
  model: () => ModelProvider;
  /** Wakes the room's sandbox ahead of its first command (no-op when it is known to be warm). */
  warmSandbox?: () => void;
  /** False once the room was deleted during this turn: nothing more may run or be written. */
  stillCurrent?: () => boolean;
  onEvent?: (e: TurnEvent) => void;
}

/** What survives a restart mid-turn: the model's text and the commands already finished. */
interface Progress {
  modelText: string;
  runs: RunResult[];
  /** Index of the command that was running, if any. */
  running?: number;
}

export const UNKNOWN_OUTCOME = "outcome unknown: Duet restarted while this command was running, so it was not run again";

/** A turn's answer and the model's text it came from (redacted, <run> tags kept). */
export interface TurnResult {
  answer: StoredAnswer;
  modelText: string;
}

/**
 * Asks the model, then runs its commands in order. Before each command the
 * progress (the model's text as written, the results so far) is stored in the
 * turn's row, so a restart resumes after the last finished command and reports
 * the one that was running as unknown. The model's raw text stays in that row
 * only while the turn runs; what is kept afterwards is redacted.
 */
export async function runTurn(deps: TurnDeps, turn: LedgerTurn): Promise<TurnResult> {
  const { config, ledger } = deps;
  let progress: Progress | null = turn.progress ? (JSON.parse(turn.progress) as Progress) : null;

  if (!progress) {
    // The sandbox may be cold: wake it while the model thinks, so the start-up overlaps inference.
    if (config.MAX_RUNS_PER_REPLY > 0 && config.SANDBOX_PREWARM === "on") deps.warmSandbox?.();
    // The model sees its own earlier words with their <run> tags and each result as a separate data message.
    const recent = ledger.recentTurns(MODEL_CONTEXT_MESSAGES / 2).map((t) => ({
      userText: t.question,
      modelText: t.modelText,
      shownText: t.reply,
      runs: t.runs,
      ...(t.skipped ? { skipped: t.skipped } : {}),
    }));
    const prompt = buildContext(recent, turn.question, MODEL_CONTEXT_MESSAGES);
    const modelText = await completeWithDeadline(deps.model(), prompt, config.MODEL_TIMEOUT_MS);
    progress = { modelText, runs: [] };
  }

  ensureCurrent(deps);
  const parsed = readModelText(progress.modelText, config.MAX_RUNS_PER_REPLY);
  deps.onEvent?.({ type: "text", text: parsed.explanation });

  for (let i = progress.runs.length; i < parsed.commands.length; i++) {
    const cmd = parsed.commands[i];
    if (progress.running === i) {
      // It may have run, fully or partly: running it again could repeat a side effect.
      progress.runs.push({ cmd: deps.redact(cmd), exitCode: null, stdout: "", stderr: "", truncated: false, durationMs: 0, error: UNKNOWN_OUTCOME });
      continue;
    }
    // A DELETE while the model thought (or a command ran) means the sandbox is a new, clean one: run nothing in it.
    ensureCurrent(deps);
    progress.running = i;
    ledger.markStarted(turn, JSON.stringify(progress));
    deps.onEvent?.({ type: "command-start", index: i, cmd: deps.redact(cmd) });
    const run = await runCommand(deps, cmd);
    progress.runs.push(run);
    progress.running = undefined;
    deps.onEvent?.({ type: "command-end", index: i, run });
  }

  const skipped = parsed.skipped.map(deps.redact);
  const answer: StoredAnswer = {
    reply: deps.redact(buildReply(parsed.explanation, progress.runs, skipped)),
    explanation: deps.redact(parsed.explanation),
    runs: progress.runs,
    ...(skipped.length ? { skipped } : {}),
  };
  deps.onEvent?.({ type: "done", answer });
  return { answer, modelText: deps.redact(progress.modelText) };
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
export async function runCommand(deps: CommandDeps, cmd: string): Promise<RunResult> {
  const shown = deps.redact(cmd);
  if (!deps.executor) {
    return { cmd: shown, exitCode: null, stdout: "", stderr: "", truncated: false, durationMs: 0, error: deps.executorProblem ?? "no sandbox is configured" };
  }
  const started = Date.now();
  try {
    const raw = await deps.executor.exec(deps.roomId, cmd, deps.config.COMMAND_TIMEOUT_MS);
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
    return { cmd: shown, exitCode: null, stdout: "", stderr: "", truncated: false, durationMs: Date.now() - started, error: deps.redact((err as Error).message) };
  }
}
