import { randomUUID } from "node:crypto";
import { channelTargetOf, decide, prClick, runCommand, STOP_WORDS, type ChatSurface, type DuetCommand, type LiveView, type PendingApproval, type Reply, type WorkerClient } from "@duet/shared";
import { LivePrinter } from "./live.ts";
import { renderReply, type Style } from "./render.ts";
import { recallPending, rememberPending } from "./pending-store.ts";
import { terminalFiles } from "./saved-files.ts";

/** What every command needs: the client, how to print, and what to redact. */
export interface CliContext {
  client: WorkerClient;
  style: Style;
  /** The CLI's own token, kept out of anything printed (the flow redacts it). */
  secrets: readonly string[];
  userId: string;
  /** The person as git knows them, for a pull request's credit; absent or null, it names `userId`. */
  person?: { name: string; email: string } | null;
  /** The folder the person ran `duet` in: their file paths are read from it and files are saved under it (default: the process's). */
  cwd?: string;
  baseUrl: string;
  tokenSource: string;
  out(text: string): void;
  err(text: string): void;
  /** Prints without a line end (a live answer's text as it arrives); absent, answers print whole. */
  write?(text: string): void;
  /** The CLI's state folder, where each room's last waiting commands are kept for `duet approve ROOM N`; absent, they are not kept. */
  stateDir?: string;
  /** Calls `handler` on Ctrl-C until the returned function is called. */
  onInterrupt?(handler: () => void): () => void;
  /** Told the commands an answer left waiting for approval (none: an empty list), so `duet chat` can offer /approve N. */
  onPending?(pending: readonly PendingApproval[]): void;
}

/** A command the CLI sends to a room (help is the CLI's own: its usage, or the chat's help). */
export type RoomAction = Exclude<DuetCommand, { kind: "help" }>;

/**
 * The terminal as the chat flow's surface: everything is printed (a terminal has
 * one reader, so private replies are printed too), failures on stderr. It keeps
 * the exit code of what it printed: a command's own failure, a partial reset or
 * an error is the CLI's failure, so scripts can test it.
 */
export function terminalSurface(room: string, ctx: CliContext): ChatSurface & { exitCode(): number } {
  let code = 0;
  const print = async (reply: Reply) => {
    notePending(reply, room, ctx);
    if (reply.kind === "error") ctx.err(ctx.style.red(renderReply(reply, room, ctx)));
    else ctx.out(renderReply(reply, room, ctx));
    if (reply.kind === "error" || reply.kind === "pr-no-repo" || (reply.kind === "reset" && reply.errors.length) || (reply.kind === "ran" && reply.result.exitCode !== 0)) code = 1;
    return { id: room };
  };
  return {
    post: print,
    postPrivate: print,
    // The terminal is the asker's own.
    postSecret: print,
    // A terminal cannot change what it printed; the new version follows.
    edit: async (_ref, reply) => Boolean(await print(reply)),
    showProgress: () => async () => {},
    // On stderr, like other notices: what a script reads from stdout is the answer alone.
    queued: async (note) => ctx.err(ctx.style.yellow(note)),
    live: ctx.write ? () => liveView(room, ctx, ctx.write!, print) : undefined,
    files: terminalFiles(ctx),
    exitCode: () => code,
  };
}

/** A live answer at the terminal; Ctrl-C while it runs stops the room's turn. */
function liveView(room: string, ctx: CliContext, write: (text: string) => void, print: (reply: Reply) => Promise<{ id: string }>): LiveView {
  const printer = new LivePrinter(write, ctx.style);
  const off = stopOnInterrupt(room, ctx, STOP_WORDS.stopping, (line) => printer.notice((l) => ctx.err(l), line));
  return {
    update: (answer) => printer.update(answer),
    async finish(reply, ended) {
      off?.();
      notePending(reply, room, ctx);
      if (reply.kind !== "answer" || !printer.live) return print(reply);
      printer.finish(reply.answer, ended);
      return { id: room };
    },
  };
}

/** Until the returned function is called, Ctrl-C stops what runs in the room (through the room's stop, as Slack's and Discord's Stop do). */
/** Ctrl-C while a turn or a direct run is going: asks the room to stop it, once; `say` prints the notice. */
function stopOnInterrupt(room: string, ctx: CliContext, notice: string, say: (line: string) => void): (() => void) | undefined {
  let stopping = false;
  return ctx.onInterrupt?.(() => {
    if (stopping) return;
    stopping = true;
    say(ctx.style.yellow(notice));
    ctx.client.stop(room, ctx.userId).catch((err: unknown) => ctx.err(ctx.style.red(STOP_WORDS.failed(err instanceof Error ? err.message : String(err)))));
  });
}

function notePending(reply: Reply, room: string, ctx: CliContext): void {
  if (reply.kind !== "answer") return;
  ctx.onPending?.(reply.answer.pending ?? []);
  if (ctx.stateDir) rememberPending(ctx.stateDir, ctx.baseUrl, room, reply.answer.pending ?? []);
}

/** Runs one action against a room through the shared flow. Resolves to the exit code. */
export async function runAction(room: string, action: RoomAction, ctx: CliContext): Promise<number> {
  const surface = terminalSurface(room, ctx);
  const flow = { worker: ctx.client, log: () => {}, secrets: ctx.secrets, streaming: Boolean(ctx.write) };
  // A live answer stops on Ctrl-C by itself; a direct run has no live view, so it is watched here.
  const off = action.kind === "run" ? stopOnInterrupt(room, ctx, STOP_WORDS.stoppingCommand, (line) => ctx.err(line)) : undefined;
  try {
    // A fresh key per action lets the client retry a lost request without running its commands twice.
    // A schedule set on a Slack or Discord channel's room posts its answers in that channel; any other room keeps them in its history.
    const target = channelTargetOf(room);
    const person = action.kind === "pr" && ctx.person ? { name: ctx.person.name, email: ctx.person.email } : {};
    await runCommand(flow, surface, { room, user: ctx.userId, key: `cli-${randomUUID()}`, ...person, ...(target ? { scheduleTarget: target } : {}) }, action);
  } finally {
    off?.();
  }
  return surface.exitCode();
}

/** `duet approve|skip ROOM N`: the Nth command the last answer in the room listed, by its id. Resolves to the exit code. */
export async function runPickedDecision(room: string, pick: { pick: number; decision: "run" | "skip" }, ctx: CliContext): Promise<number> {
  const pending = ctx.stateDir ? recallPending(ctx.stateDir, ctx.baseUrl, room) : [];
  const chosen = pending[pick.pick - 1];
  if (!chosen) {
    const listed = pending.length ? `the last answer in ${room} listed ${pending.length}` : `the last answer in ${room} here proposed none`;
    ctx.err(ctx.style.red(`duet: there is no waiting command ${pick.pick}: ${listed} (an id, as listed, works too)`));
    return 1;
  }
  return runDecision(room, { approvalId: chosen.id, decision: pick.decision }, ctx);
}

/** Runs or skips a command waiting for approval; the decision and any output are printed. Resolves to the exit code. */
export async function runDecision(room: string, pick: { approvalId: string; decision: "run" | "skip" }, ctx: CliContext): Promise<number> {
  const surface = terminalSurface(room, ctx);
  const flow = { worker: ctx.client, log: () => {}, secrets: ctx.secrets };
  const outcome = await decide(flow, surface, { room, user: ctx.userId, key: `cli-${randomUUID()}` }, { ...pick, message: { id: room } });
  return outcome === "answered" ? surface.exitCode() : 1;
}

/** `duet pr ROOM --open|--skip ID`: opens or skips a pull request proposal; the pull request's link is printed. Resolves to the exit code. */
export async function runPrClick(room: string, click: { proposalId: string; decision: "open" | "skip" }, ctx: CliContext): Promise<number> {
  const surface = terminalSurface(room, ctx);
  const flow = { worker: ctx.client, log: () => {}, secrets: ctx.secrets };
  const outcome = await prClick(flow, surface, { room, user: ctx.userId, key: `cli-${randomUUID()}` }, { ...click, message: { id: room } });
  return outcome === "answered" ? surface.exitCode() : 1;
}
