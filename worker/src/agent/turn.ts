import { DuetError, RUN_OUTPUT_MAX_BYTES, MODEL_CONTEXT_MESSAGES, type DuetMessage, type RunResult } from "@duet/shared";
import type { WorkerConfig } from "../config.ts";
import { buildPrompt } from "../model/prompt.ts";
import { completeWithDeadline, type ModelProvider } from "../model/provider.ts";
import { readModelText } from "../reply/reader.ts";
import { buildReply, capBytes } from "../reply/reply-text.ts";
import type { SandboxExecutor } from "../sandbox/executor.ts";
import type { PendingTurn, RoomStore, StoredAnswer } from "./room-store.ts";

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

export interface TurnDeps {
  roomId: string;
  config: WorkerConfig;
  store: RoomStore;
  model: () => ModelProvider;
  /** Null when the sandbox is not configured; commands then fail with a clear message. */
  executor: SandboxExecutor | null;
  executorProblem?: string;
  redact: (text: string) => string;
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

export async function runTurn(deps: TurnDeps, turn: PendingTurn, history: DuetMessage[]): Promise<StoredAnswer> {
  const { config, store } = deps;
  let progress: Progress | null = turn.started ? (JSON.parse(turn.started) as Progress) : null;

  if (!progress) {
    // The sandbox may be cold: wake it while the model thinks, so the start-up overlaps inference.
    if (config.MAX_RUNS_PER_REPLY > 0 && config.SANDBOX_PREWARM === "on") deps.warmSandbox?.();
    const prompt = buildPrompt(history, turn.text, MODEL_CONTEXT_MESSAGES);
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
      progress.runs.push({ cmd, exitCode: null, stdout: "", stderr: "", truncated: false, durationMs: 0, error: UNKNOWN_OUTCOME });
      continue;
    }
    // A DELETE while the model thought (or a command ran) means the sandbox is a new, clean one: run nothing in it.
    ensureCurrent(deps);
    progress.running = i;
    store.markStarted(turn.id, JSON.stringify(progress));
    deps.onEvent?.({ type: "command-start", index: i, cmd });
    const run = await runCommand(deps, cmd);
    progress.runs.push(run);
    progress.running = undefined;
    deps.onEvent?.({ type: "command-end", index: i, run });
  }

  const answer: StoredAnswer = {
    reply: deps.redact(buildReply(parsed.explanation, progress.runs, parsed.skipped)),
    explanation: deps.redact(parsed.explanation),
    runs: progress.runs,
    ...(parsed.skipped.length ? { skipped: parsed.skipped } : {}),
  };
  deps.onEvent?.({ type: "done", answer });
  return answer;
}

function ensureCurrent(deps: TurnDeps): void {
  if (deps.stillCurrent && !deps.stillCurrent()) {
    throw new DuetError("not_found", "this room was deleted while the message was being answered");
  }
}

/**
 * The one place a command reaches the sandbox. A run policy (auto / approve)
 * and an audit trail will sit in front of this function.
 */
export async function runCommand(deps: Pick<TurnDeps, "roomId" | "config" | "executor" | "executorProblem" | "redact">, cmd: string): Promise<RunResult> {
  if (!deps.executor) {
    return { cmd, exitCode: null, stdout: "", stderr: "", truncated: false, durationMs: 0, error: deps.executorProblem ?? "no sandbox is configured" };
  }
  const started = Date.now();
  try {
    const raw = await deps.executor.exec(deps.roomId, cmd, deps.config.COMMAND_TIMEOUT_MS);
    const stdout = capBytes(raw.stdout, RUN_OUTPUT_MAX_BYTES);
    const stderr = capBytes(raw.stderr, RUN_OUTPUT_MAX_BYTES);
    return {
      cmd,
      exitCode: raw.exitCode,
      stdout: deps.redact(stdout.text),
      stderr: deps.redact(stderr.text),
      truncated: raw.truncated || stdout.cut || stderr.cut,
      durationMs: raw.durationMs,
    };
  } catch (err) {
    return { cmd, exitCode: null, stdout: "", stderr: "", truncated: false, durationMs: Date.now() - started, error: (err as Error).message };
  }
}
