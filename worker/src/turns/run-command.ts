import { RUN_OUTPUT_MAX_BYTES, type RunResult, type Span } from "@duet/shared";
import type { WorkerConfig } from "../config.ts";
import { capBytes } from "../text-bytes.ts";
import type { SandboxExecutor } from "../sandbox/types.ts";
import { toolCallOf } from "../reply/tool-tag.ts";
import { noToolsRun, type ToolBox } from "../tools/room-tools.ts";

/** What a command needs: the room's sandbox and the redaction for what comes back. */
export interface CommandDeps {
  roomId: string;
  config: WorkerConfig;
  /** Null when the sandbox is not configured; commands then fail with a clear message. */
  executor: SandboxExecutor | null;
  executorProblem?: string;
  /** The room's one redactor (built in room/room.ts). */
  redact: (text: string) => string;
  /** The tool servers the room turned on; absent when it has none. */
  tools?: ToolBox;
  /** The turn's span, when the command is one of a turn's: each command is an `execute_tool` span under it. */
  span?: Span;
  /** Who the command runs for (the asker, or who approved it): the sandbox shares its slots by person. */
  person?: string;
}

/**
 * The one place a command reaches the sandbox (or, for a tool call, its tool server). The sandbox gets the command
 * exactly as written; what comes back (the command in `cmd`, its output) is
 * redacted, since it is shown in chat and stored.
 */
export async function runCommand(deps: CommandDeps, cmd: string, stop?: AbortSignal): Promise<RunResult> {
  // A tool call is its tool's span (`execute_tool server.tool`); any other command is the sandbox's shell.
  const call = toolCallOf(cmd);
  const tool = call ? `${call.server}.${call.tool}` : "shell";
  const span = deps.span?.child(`execute_tool ${tool}`, { kind: "client" });
  const run = await runTraced(deps, cmd, stop, span?.traceparent);
  // The command as chat shows it (redacted); its output is counted, never exported.
  span
    ?.set({
      "gen_ai.operation.name": "execute_tool",
      "gen_ai.tool.name": tool,
      // A tool call's arguments are in it as chat shows them, redacted like a command's text.
      "duet.command": run.cmd,
      "process.exit.code": run.exitCode,
      "duet.command.duration_ms": run.durationMs,
      "duet.command.output_bytes": utf8Bytes(run.stdout) + utf8Bytes(run.stderr),
      "duet.command.truncated": run.truncated,
    });
  // A command that ran and exited non-zero is an answer, not a failed span; one that could not run (or was cut off) is.
  if (run.error) span?.fail(run.error);
  span?.end();
  return run;
}

const utf8Bytes = (text: string) => new TextEncoder().encode(text).byteLength;

async function runTraced(deps: CommandDeps, cmd: string, stop: AbortSignal | undefined, traceparent: string | undefined): Promise<RunResult> {
  const shown = deps.redact(cmd);
  // A tool call travels as a command (reply/tool-tag.ts) and goes to its server, never to the sandbox.
  const call = toolCallOf(cmd);
  if (call) return deps.tools ? deps.tools.run(call, stop) : noToolsRun(shown, call);
  if (!deps.executor) {
    return { cmd: shown, exitCode: null, stdout: "", stderr: "", truncated: false, durationMs: 0, error: deps.executorProblem ?? "no sandbox is configured" };
  }
  const started = Date.now();
  try {
    const raw = await deps.executor.exec(deps.roomId, cmd, deps.config.COMMAND_TIMEOUT_MS, stop, traceparent, deps.person);
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

/** A command whose outcome is not known (it may have run), recorded instead of running it again. */
export function unknownRun(cmd: string, why: string): RunResult {
  return { cmd, exitCode: null, stdout: "", stderr: "", truncated: false, durationMs: 0, error: why };
}

/** A run with a note about the workspace (a save that failed after it) at the end of its stderr, or the run as it was. */
export function withWorkspaceNote(run: RunResult, note: string | null): RunResult {
  return note ? { ...run, stderr: `${run.stderr}${run.stderr && !run.stderr.endsWith("\n") ? "\n" : ""}[sandbox] ${note}\n` } : run;
}
