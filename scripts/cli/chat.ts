import { createInterface } from "node:readline";
import { readRunPolicy } from "@duet/shared";
import { runAction, type CliContext, type RoomAction } from "./commands.ts";
import { chatHelp } from "./render.ts";

/** One chat line as an action, or what the loop itself should do. */
export type ChatLine = RoomAction | { kind: "quit" } | { kind: "help" } | { kind: "skip" } | { kind: "unknown"; word: string };

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
    if (word === "/policy") {
      const arg = text.slice(word.length).trim();
      if (!arg) return { kind: "policy" };
      const runPolicy = readRunPolicy(arg);
      return runPolicy ? { kind: "policy", runPolicy } : { kind: "unknown", word: `${word} ${arg.slice(0, 30)}` };
    }
    if (word === "/help" || word === "/?") return { kind: "help" };
    return { kind: "unknown", word };
  }
  return { kind: "ask", text };
}

/**
 * `duet chat ROOM`: reads lines until /quit or end of input and answers each in turn
 * (lines typed while an answer is pending wait for it). Errors are printed and the
 * chat goes on. Resolves to the exit code: 0 unless the input could not be read.
 */
export async function runChat(room: string, ctx: CliContext, input: NodeJS.ReadableStream, output: NodeJS.WritableStream & { isTTY?: boolean }): Promise<number> {
  const interactive = Boolean((input as { isTTY?: boolean }).isTTY);
  const rl = createInterface({ input, output: interactive ? output : undefined, terminal: interactive });
  rl.setPrompt(ctx.style.bold(`${room}> `));
  // Ctrl-C at the prompt leaves the chat, as in a shell's REPL; while an answer runs, it stops the answer.
  let interrupt: (() => void) | null = null;
  rl.on("SIGINT", () => (interrupt ? interrupt() : rl.close()));
  ctx = {
    ...ctx,
    onInterrupt: (handler) => {
      interrupt = handler;
      return () => void (interrupt = null);
    },
  };
  if (interactive) {
    ctx.out(ctx.style.dim(`Chatting in room ${room} at ${ctx.baseUrl}. /help for commands, /quit to leave.`));
    rl.prompt();
  }
  for await (const line of rl) {
    const parsed = parseChatLine(line);
    if (parsed.kind === "quit") break;
    if (parsed.kind === "help") ctx.out(chatHelp());
    else if (parsed.kind === "unknown") ctx.err(`unknown chat command ${parsed.word}; /help lists them`);
    else if (parsed.kind !== "skip") await runAction(room, parsed, ctx);
    if (interactive) rl.prompt();
  }
  rl.close();
  return 0;
}
