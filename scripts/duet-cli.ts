import { userInfo } from "node:os";
import { WorkerClient } from "@duet/shared";
import { parseArgs, UsageError, USAGE, USAGE_HINT } from "./cli/args.ts";
import { runChat } from "./cli/chat.ts";
import { runAction, runDecision, runPickedDecision, runPrClick, type CliContext } from "./cli/commands.ts";
import { gitPerson } from "./cli/git-person.ts";
import { CliConfigError, cliHome, loadCliConfig } from "./cli/config.ts";
import { showTrace } from "./cli/trace.ts";
import { getFile, putFile } from "./cli/files.ts";
import { makeStyle, useColor } from "./cli/render.ts";
import { callerDir } from "./cli/saved-files.ts";

/**
 * `npm run -s duet -- ...` (or `pnpm duet ...`): talk to a Duet Worker from a terminal (see USAGE). Exit codes:
 * 0 done, 1 the request or the command failed (one line says why), 2 usage error.
 */

export interface CliIo {
  env: Record<string, string | undefined>;
  stdin: NodeJS.ReadableStream;
  stdout: NodeJS.WritableStream & { isTTY?: boolean };
  stderr: NodeJS.WritableStream & { isTTY?: boolean };
  /** Ctrl-C while an answer runs (default: the process's SIGINT). */
  onInterrupt?(handler: () => void): () => void;
}

/** Ctrl-C calls `handler` (stopping the answer); a second Ctrl-C leaves at once, as a terminal expects. */
function onProcessInterrupt(handler: () => void): () => void {
  let pressed = 0;
  const listener = () => {
    pressed += 1;
    if (pressed > 1) process.exit(130);
    handler();
  };
  process.on("SIGINT", listener);
  return () => void process.off("SIGINT", listener);
}

/** Fewer retries than the bots': a person at a terminal wants the "is it running?" answer quickly. */
const CLI_RETRIES = 2;

function whoAmI(): string {
  try {
    return `cli:${userInfo().username}`;
  } catch {
    return "cli";
  }
}

export async function runCli(argv: readonly string[], io: CliIo): Promise<number> {
  const println = (stream: NodeJS.WritableStream) => (text: string) => void stream.write(`${text}\n`);
  let command;
  try {
    command = parseArgs(argv);
  } catch (err) {
    if (!(err instanceof UsageError)) throw err;
    // One line saying what is wrong (its own "duet ..." words or after "duet: "), and where the usage is.
    println(io.stderr)(`${err.message.startsWith("duet ") ? err.message : `duet: ${err.message}`}\n${USAGE_HINT}`);
    return 2;
  }
  if (command.kind === "help") {
    println(io.stdout)(USAGE);
    return 0;
  }

  // Read from the traces `pnpm dev` keeps: no Worker, no token needed.
  if (command.kind === "trace") return showTrace(command.ref, cliHome(io.env), makeStyle(useColor(io.stdout, io.env)), println(io.stdout), println(io.stderr));

  let config;
  try {
    config = loadCliConfig(io.env);
  } catch (err) {
    if (!(err instanceof CliConfigError)) throw err;
    println(io.stderr)(`duet: ${err.message}`);
    return 1;
  }
  const ctx: CliContext = {
    client: new WorkerClient({ baseUrl: config.baseUrl, token: config.token, retries: CLI_RETRIES }),
    style: makeStyle(useColor(io.stdout, io.env)),
    secrets: [config.token],
    userId: whoAmI(),
    cwd: callerDir(io.env),
    stateDir: config.home,
    baseUrl: config.baseUrl,
    tokenSource: config.tokenSource,
    out: println(io.stdout),
    err: println(io.stderr),
    ...(io.env.DUET_STREAMING === "off" ? {} : { write: (text: string) => void io.stdout.write(text) }),
    onInterrupt: io.onInterrupt ?? onProcessInterrupt,
  };
  if (command.kind === "chat") return runChat(command.room, ctx, io.stdin, io.stdout);
  if (command.kind === "decide") return "pick" in command ? runPickedDecision(command.room, command, ctx) : runDecision(command.room, command, ctx);
  if (command.kind === "get") return getFile(command, ctx);
  if (command.kind === "pr-click") return runPrClick(command.room, command, ctx);
  if (command.kind === "pr") ctx.person = gitPerson(io.env, ctx.cwd);
  if (command.kind === "put") return putFile(command, ctx);
  const { room, ...action } = command;
  return runAction(room, action, ctx);
}

if (import.meta.url === `file://${process.argv[1]}`) {
  runCli(process.argv.slice(2), { env: process.env, stdin: process.stdin, stdout: process.stdout, stderr: process.stderr }).then(
    (code) => {
      process.exitCode = code;
    },
    (err: unknown) => {
      // Only a bug gets here; still one line, never a stack trace.
      console.error(`duet: unexpected error: ${err instanceof Error ? err.message : String(err)}`);
      process.exitCode = 1;
    },
  );
}
