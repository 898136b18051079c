import { createInterface } from "node:readline";
import { forgetCommand, readModel, readRepoArgs, readRunPolicy, rememberCommand, scheduleCommand, unscheduleCommand, type PendingApproval } from "@duet/shared";
import { runAction, runDecision, type CliContext, type RoomAction } from "./commands.ts";
import { chatHelp } from "./render.ts";
import { CHAT_LINE_SPELLING } from "./spelling.ts";

/** One chat line as an action, or what the loop itself should do. */
export type ChatLine =
  | RoomAction
  | { kind: "decide"; decision: "run" | "skip"; pick?: number }
  | { kind: "quit" }
  | { kind: "help" }
  | { kind: "skip" }
  | { kind: "unknown"; word: string };

export function parseChatLine(line: string): ChatLine {
  const text = line.trim();
  if (!text) return { kind: "skip" };
  if (text.startsWith("!")) {
    const cmd = text.slice(1).trim();
    return cmd ? { kind: "run", cmd } : { kind: "skip" };
  }
  if (text.startsWith("/")) {
    const word = text.split(/\s+/)[0].toLowerCase();
    if (word === "/quit" || word === "/exit" || word === "/q") return { kind: "quit" };
    if (word === "/history") return { kind: "history" };
    if (word === "/reset") return { kind: "reset" };
    if (word === "/audit") return { kind: "audit" };
    if (word === "/schedules") return { kind: "schedules" };
    if (word === "/schedule" || word === "/unschedule") {
      const parsed = (word === "/schedule" ? scheduleCommand : unscheduleCommand)(text.slice(word.length), CHAT_LINE_SPELLING);
      return parsed.kind === "help" ? { kind: "unknown", word: `${word}: ${parsed.problem ?? ""}` } : parsed;
    }
    if (word === "/usage") return { kind: "usage" };
    if (word === "/memory") return { kind: "memory" };
    if (word === "/remember" || word === "/forget") {
      const parsed = (word === "/remember" ? rememberCommand : forgetCommand)(text.slice(word.length), CHAT_LINE_SPELLING);
      return parsed.kind === "help" ? { kind: "unknown", word: `${word}: ${parsed.problem ?? ""}` } : parsed;
    }
    if (word === "/model") {
      const read = readModel(text.slice(word.length));
      return read.kind === "model" ? read : { kind: "unknown", word: `${word} ${text.slice(word.length).trim().slice(0, 30)}` };
    }
    if (word === "/repo") {
      const read = readRepoArgs(text.slice(word.length));
      return "problem" in read ? { kind: "unknown", word: `${word}: ${read.problem}` } : { kind: "repo", ...read };
    }
    if (word === "/policy") {
      const arg = text.slice(word.length).trim();
      if (!arg) return { kind: "policy" };
      const runPolicy = readRunPolicy(arg);
      return runPolicy ? { kind: "policy", runPolicy } : { kind: "unknown", word: `${word} ${arg.slice(0, 30)}` };
    }
    if (word === "/approve" || word === "/skip") {
      const arg = text.slice(word.length).trim();
      const decision = word === "/approve" ? "run" : "skip";
      if (!arg) return { kind: "decide", decision };
      return /^[1-9][0-9]{0,2}$/.test(arg) ? { kind: "decide", decision, pick: Number(arg) } : { kind: "unknown", word: `${word} ${arg.slice(0, 30)}` };
    }
    if (word === "/help" || word === "/?") return { kind: "help" };
    return { kind: "unknown", word };
  }
  return { kind: "ask", text };
}

/**
 * `duet chat ROOM`: reads lines until /quit or end of input and answers each in turn
 * (lines typed while an answer is pending wait for it). Errors are printed and the
 * chat goes on. Resolves to the exit code: 1 when any line failed (an error, a
 * command that exited non-zero), so a script piping lines in can tell; else 0.
 */
export async function runChat(room: string, ctx: CliContext, input: NodeJS.ReadableStream, output: NodeJS.WritableStream & { isTTY?: boolean }): Promise<number> {
  const interactive = Boolean((input as { isTTY?: boolean }).isTTY);
  const rl = createInterface({ input, output: interactive ? output : undefined, terminal: interactive });
  rl.setPrompt(ctx.style.bold(`${room}> `));
  // Ctrl-C at the prompt leaves the chat, as in a shell's REPL; while an answer or a command runs, it stops it.
  // A terminal's Ctrl-C reaches readline as a key; from a pipe it is the process's signal, which the CLI's own handler takes.
  let interrupt: (() => void) | null = null;
  rl.on("SIGINT", () => (interrupt ? interrupt() : rl.close()));
  const outer = interactive ? undefined : ctx.onInterrupt;
  // The commands the last answer left waiting, numbered as it listed them, for /approve N and /skip N.
  let pending: readonly PendingApproval[] = [];
  ctx = {
    ...ctx,
    onInterrupt: (handler) => {
      interrupt = handler;
      const off = outer?.(handler);
      return () => {
        interrupt = null;
        off?.();
      };
    },
    onPending: (list) => void (pending = list),
  };
  if (interactive) {
    ctx.out(ctx.style.dim(`Chatting in room ${room} at ${ctx.baseUrl}. /help for commands, /quit to leave.`));
    rl.prompt();
  }
  let failed = false;
  for await (const line of rl) {
    const parsed = parseChatLine(line);
    if (parsed.kind === "quit") break;
    if (parsed.kind === "help") ctx.out(chatHelp());
    else if (parsed.kind === "unknown") ctx.err(`unknown chat command ${parsed.word}; /help lists them`);
    else if (parsed.kind === "decide") {
      const chosen = choose(pending, parsed.pick);
      if (typeof chosen === "string") ctx.err(chosen);
      else {
        if ((await runDecision(room, { approvalId: chosen.id, decision: parsed.decision }, ctx)) !== 0) failed = true;
        pending = pending.filter((p) => p !== chosen);
      }
    }
    else if (parsed.kind !== "skip" && (await runAction(room, parsed, ctx)) !== 0) failed = true;
    if (interactive) rl.prompt();
  }
  rl.close();
  return failed ? 1 : 0;
}

/** The waiting command `/approve N` or `/skip N` names, or why there is none. */
function choose(pending: readonly PendingApproval[], pick: number | undefined): PendingApproval | string {
  if (pending.length === 0) return "no command is waiting for approval here (the last answer proposed none, or all were decided)";
  if (pick === undefined) return pending.length === 1 ? pending[0] : `${pending.length} commands are waiting: say which, e.g. /approve 1`;
  return pending[pick - 1] ?? `there is no waiting command ${pick}: the last answer listed ${pending.length}`;
}
