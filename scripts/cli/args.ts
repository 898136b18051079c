import { forgetCommand, isValidRoomId, PR_PROPOSAL_ID_PATTERN, readModel, readPrArgs, readRepoArgs, readRunPolicy, readToolsArgs, rememberCommand, REPO_WORDS, scheduleCommand, unscheduleCommand, type RepoChange, type RunPolicy, type ToolsChange } from "@duet/shared";
import { cliSpelling } from "./spelling.ts";

/** What `duet ...` was asked to do, parsed from argv before anything touches the network. */
export type CliCommand =
  | { kind: "help" }
  | { kind: "ask"; room: string; text: string }
  | { kind: "run"; room: string; cmd: string }
  | { kind: "history"; room: string }
  | { kind: "reset"; room: string; keepMemory?: boolean }
  | { kind: "policy"; room: string; runPolicy?: RunPolicy }
  | { kind: "audit"; room: string }
  | { kind: "schedule"; room: string; when: string; ask: string }
  | { kind: "schedules"; room: string }
  | { kind: "unschedule"; room: string; id: string }
  | { kind: "model"; room: string; model?: string }
  | { kind: "usage"; room: string }
  | { kind: "remember"; room: string; fact: string }
  | { kind: "memory"; room: string }
  | { kind: "forget"; room: string; n: number }
  | { kind: "repo"; room: string; change?: RepoChange }
  | { kind: "pr"; room: string; title?: string }
  | { kind: "tools"; room: string; change?: ToolsChange }
  | { kind: "pr-click"; room: string; decision: "open" | "skip"; proposalId: string }
  | { kind: "decide"; room: string; decision: "run" | "skip"; approvalId: string }
  | { kind: "decide"; room: string; decision: "run" | "skip"; pick: number }
  | { kind: "chat"; room: string }
  | { kind: "get"; room: string; path: string; out?: string }
  | { kind: "put"; room: string; file: string; path?: string }
  | { kind: "trace"; ref: string };

/** A mistake in the command line: the CLI prints it above USAGE and exits 2. */
export class UsageError extends Error {}

export const USAGE = `Usage: duet <command> ROOM [...]

  duet ask ROOM TEXT...     ask Duet; it answers and may run commands in ROOM's sandbox
  duet run ROOM CMD...      run a shell command in ROOM's sandbox yourself (no model needed)
  duet history ROOM         show ROOM's conversation
  duet reset ROOM [--keep-memory]
                            wipe ROOM's conversation and destroy its sandbox;
                            its pinned facts too, unless --keep-memory
  duet policy ROOM [auto|approve]
                            show ROOM's run policy, or set it: auto runs Duet's
                            commands at once, approve waits for Run or Skip in chat
  duet model ROOM [NAME]    show ROOM's model and the choices, or switch to NAME
  duet repo ROOM [OWNER/NAME[@BRANCH]|unlink|sync]
                            show the repository ROOM works on, link one (the
                            branch defaults to its default branch), unlink it,
                            or sync: check it out at repo/ (or fetch) now
  duet pr ROOM [TITLE...]   propose the change in ROOM's repo/ as a pull request
                            (its branch, diffstat and the diff's first lines)
  duet pr ROOM --open ID    open proposal ID: Duet pushes the duet/ branch and
                            opens (or updates) the pull request
  duet pr ROOM --skip ID    drop proposal ID
  duet tools ROOM [add NAME URL [HEADER=VALUE...] | remove NAME | room on|off NAME]
                            list the tool servers (MCP) of ROOM's workspace and
                            their tools, add one (header values are kept sealed
                            and never shown), remove one, or turn one on or off
                            in ROOM
  duet usage ROOM           model tokens used in ROOM today and this week, by
                            person and model, their cost where the model has a
                            price, and the daily budgets
  duet audit ROOM           show who ran or skipped which commands in ROOM
  duet remember ROOM FACT...
                            pin a fact Duet keeps in mind in every answer in ROOM
  duet memory ROOM          list ROOM's pinned facts, numbered
  duet forget ROOM N        unpin fact N
  duet schedule ROOM WHEN ASK...
                            ask on its own at WHEN ('every 2h', 'every weekday
                            09:00 Europe/Berlin', a cron line; quote a cron line)
  duet schedules ROOM       list ROOM's schedules with their ids and next runs
  duet unschedule ROOM ID   remove a schedule
  duet approve ROOM N|ID    run a command Duet proposed under approve (its number
                            [N] or id, as the last \`duet ask\` listed it)
  duet skip ROOM N|ID       skip it instead
  duet trace [ID|last]      draw a turn's trace kept by \`pnpm dev\` (the newest by
                            default; ID: a trace id or an error's \`ref\`)
  duet get ROOM PATH [OUT]  download a file from ROOM's workspace (to OUT, default
                            its name in the current folder)
  duet put ROOM FILE [PATH] upload FILE to ROOM's workspace (default uploads/<name>)
  duet chat ROOM            interactive: each line is an ask, !CMD runs CMD,
                            /history, /reset, /policy, /model, /repo, /usage,
                            /audit, /schedule, /schedules, /unschedule ID,
                            /remember FACT, /memory, /forget N,
                            /approve N, /skip N, /help, /quit
  duet --help               show this help

ROOM is any name of 1-200 characters from A-Z a-z 0-9 . _ - (e.g. demo).
The Worker is DUET_WORKER_URL (default http://127.0.0.1:8787); the token is
DUET_API_TOKEN, else the one \`npm run dev\` saved in .duet/tokens.env.`;

/** Under a usage error: where the whole usage is (it is too long to print under every slip). */
export const USAGE_HINT = "Run `duet --help` for the commands.";

/** Every `duet` subcommand; the docs check the commands they show against it. */
export const SUBCOMMANDS = ["ask", "run", "history", "reset", "policy", "model", "repo", "pr", "tools", "usage", "audit", "schedule", "schedules", "unschedule", "remember", "memory", "forget", "approve", "skip", "chat", "get", "put"] as const;

/** Every subcommand, with the one that names no room. */
export const ALL_SUBCOMMANDS: readonly string[] = [...SUBCOMMANDS, "trace"];

const HELP_FLAGS = new Set(["--help", "-h"]);

/** The subcommand `typed` is a slip of (at most two letters changed, added, dropped or swapped), if one is. */
export function nearestCommand(typed: string): string | undefined {
  let best: { name: string; d: number } | undefined;
  for (const name of ALL_SUBCOMMANDS) {
    const d = editDistance(typed.toLowerCase(), name);
    if (d <= 2 && (!best || d < best.d)) best = { name, d };
  }
  return best?.name;
}

/** Letters changed, added, dropped or swapped (two neighbours) to turn `a` into `b`. */
function editDistance(a: string, b: string): number {
  const d = Array.from({ length: a.length + 1 }, (_, i) => Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)));
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      d[i][j] = Math.min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d[i][j] = Math.min(d[i][j], d[i - 2][j - 2] + 1);
    }
  }
  return d[a.length][b.length];
}

/** Approval ids are UUIDs; anything else never reaches the Worker. */
const APPROVAL_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function checkRoom(room: string | undefined, sub: string): string {
  if (room === undefined || room === "") throw new UsageError(`duet ${sub} needs a ROOM, e.g. duet ${sub} demo`);
  if (!isValidRoomId(room)) {
    throw new UsageError(`"${room.slice(0, 40)}" is not a valid room: use 1-200 characters from A-Z a-z 0-9 . _ -`);
  }
  // "." and ".." would be resolved away inside the URL path and reach the wrong route.
  if (/^\.+$/.test(room)) throw new UsageError(`"${room}" is not a valid room: a room cannot be only dots`);
  return room;
}

/**
 * `argv` is what follows `duet`. pnpm 12 passes a literal `--` through (`pnpm duet -- run ...`),
 * so a leading one is dropped; `duet run ROOM -- CMD` also accepts one before the command,
 * and every `--` inside the command itself is kept (`git diff -- file`).
 */
export function parseArgs(argv: readonly string[]): CliCommand {
  const args = argv[0] === "--" ? argv.slice(1) : [...argv];
  const [sub, room, ...rest] = args;
  if (sub === undefined) throw new UsageError("duet needs a command");
  // `duet history --help` asks for help, not for a room called --help.
  if (HELP_FLAGS.has(sub) || sub === "help" || HELP_FLAGS.has(room ?? "")) return { kind: "help" };
  // The one command without a ROOM: a trace is found by its id (or the newest).
  if (sub === "trace") {
    if (rest.length) throw new UsageError("duet trace takes one trace ID (or `last`)");
    const ref = (room ?? "last").trim().toLowerCase();
    if (ref !== "last" && !/^[0-9a-f]{4,32}$/.test(ref)) throw new UsageError(`duet trace takes a trace ID of 4 to 32 hex characters, or \`last\` (got "${ref.slice(0, 40)}")`);
    return { kind: "trace", ref };
  }
  const kind = SUBCOMMANDS.find((s) => s === sub);
  if (!kind) {
    const near = nearestCommand(sub);
    throw new UsageError(`unknown command "${sub.slice(0, 40)}"${near ? `; did you mean \`duet ${near}\`?` : ""}`);
  }
  const checked = checkRoom(room, kind);

  switch (kind) {
    case "ask": {
      const text = rest.join(" ").trim();
      if (!text) throw new UsageError("duet ask needs a question, e.g. duet ask demo how do I find large files?");
      return { kind, room: checked, text };
    }
    case "run": {
      const words = rest[0] === "--" ? rest.slice(1) : rest;
      const cmd = words.join(" ");
      if (!cmd.trim()) throw new UsageError("duet run needs a command, e.g. duet run demo 'ls -la'");
      return { kind, room: checked, cmd };
    }
    case "policy": {
      if (rest.length === 0) return { kind, room: checked };
      const runPolicy = rest.length === 1 ? readRunPolicy(rest[0]) : null;
      if (!runPolicy) throw new UsageError(`duet policy takes auto or approve (got "${rest.join(" ").slice(0, 40)}")`);
      return { kind, room: checked, runPolicy };
    }
    case "schedule": {
      const [when, ...ask] = rest;
      if (!when?.trim() || !ask.join(" ").trim()) throw new UsageError("duet schedule takes a ROOM, WHEN (quoted) and what to ask, e.g. duet schedule demo 'every 2h' check disk space");
      // A quoted WHEN arrives as one argument with spaces and is quoted again for the shared reader, which then splits nothing;
      // unquoted (`every 30m check disk`), the words are read as chat reads them.
      const parsed = scheduleCommand(/\s/.test(when.trim()) ? `"${when.replace(/"/g, "")}" ${ask.join(" ")}` : rest.join(" "), cliSpelling(checked));
      if (parsed.kind !== "schedule") throw new UsageError(`duet schedule: ${parsed.kind === "help" ? parsed.problem : "unreadable"}`);
      return { kind, room: checked, when: parsed.when, ask: parsed.ask };
    }
    case "unschedule": {
      const parsed = rest.length === 1 ? unscheduleCommand(rest[0], cliSpelling(checked)) : null;
      if (parsed?.kind !== "unschedule") throw new UsageError(`duet unschedule takes a ROOM and a schedule ID, as \`duet schedules\` lists it${rest.length ? ` (got "${rest.join(" ").slice(0, 40)}")` : ""}`);
      return { kind, room: checked, id: parsed.id };
    }
    case "model": {
      if (rest.length === 0) return { kind, room: checked };
      const read = rest.length === 1 ? readModel(rest[0]) : null;
      if (!read || read.kind !== "model") throw new UsageError(`duet model takes one model NAME (got "${rest.join(" ").slice(0, 40)}")`);
      return { kind, room: checked, model: read.model };
    }
    case "remember": {
      const read = rememberCommand(rest.join(" "));
      if (read.kind !== "remember") throw new UsageError("duet remember takes a ROOM and the fact to keep, e.g. duet remember demo staging runs on port 8443");
      return { kind, room: checked, fact: read.fact };
    }
    case "forget": {
      const read = rest.length === 1 ? forgetCommand(rest[0]) : null;
      if (read?.kind !== "forget") throw new UsageError(`duet forget takes a ROOM and a fact's number N, as \`duet memory\` lists it${rest.length ? ` (got "${rest.join(" ").slice(0, 40)}")` : ""}`);
      return { kind, room: checked, n: read.n };
    }
    case "repo": {
      if (rest.length === 0) return { kind, room: checked };
      // An argument given empty is a slip, not a request to show.
      const read = rest.length > 1 ? { problem: REPO_WORDS.oneWord } : rest[0].trim() ? readRepoArgs(rest[0]) : { problem: REPO_WORDS.needsName };
      if ("problem" in read) throw new UsageError(`duet repo: ${read.problem}`);
      return read.change ? { kind, room: checked, change: read.change } : { kind, room: checked };
    }
    case "tools": {
      const read = readToolsArgs(rest.map(toolsWord).join(" "));
      if ("problem" in read) throw new UsageError(`duet tools: ${read.problem}`);
      return read.change ? { kind, room: checked, change: read.change } : { kind, room: checked };
    }
    case "pr": {
      if (rest[0] === "--open" || rest[0] === "--skip") {
        if (rest.length !== 2 || !PR_PROPOSAL_ID_PATTERN.test(rest[1])) throw new UsageError(`duet pr ${rest[0]} takes the proposal's ID, as \`duet pr\` printed it`);
        return { kind: "pr-click", room: checked, decision: rest[0] === "--open" ? "open" : "skip", proposalId: rest[1] };
      }
      if (rest[0]?.startsWith("--")) throw new UsageError(`duet pr takes a TITLE, --open ID or --skip ID`);
      const read = readPrArgs(rest.join(" "));
      if ("problem" in read) throw new UsageError(`duet pr: ${read.problem}`);
      return read.title ? { kind, room: checked, title: read.title } : { kind, room: checked };
    }
    case "approve":
    case "skip": {
      const decision = kind === "approve" ? "run" : "skip";
      // The number `duet ask` listed it with ([1]), or its id.
      if (rest.length === 1 && /^[1-9][0-9]{0,2}$/.test(rest[0])) return { kind: "decide", room: checked, decision, pick: Number(rest[0]) };
      if (rest.length !== 1 || !APPROVAL_ID.test(rest[0])) {
        const got = rest.length ? ` (got "${rest.join(" ").slice(0, 40)}")` : "";
        throw new UsageError(`duet ${kind} takes a ROOM and the number or ID of a waiting command, as \`duet ask\` lists it${got}`);
      }
      return { kind: "decide", room: checked, approvalId: rest[0].toLowerCase(), decision: kind === "approve" ? "run" : "skip" };
    }
    case "reset": {
      if (rest.length === 0) return { kind, room: checked };
      if (rest.length === 1 && rest[0] === "--keep-memory") return { kind, room: checked, keepMemory: true };
      throw new UsageError(`duet reset takes a ROOM and, to keep its pinned facts, --keep-memory (got "${rest.join(" ").slice(0, 40)}")`);
    }
    case "get":
    case "put": {
      const what = kind === "get" ? "PATH [OUT]" : "FILE [PATH]";
      if (rest.length < 1 || rest.length > 2 || !rest[0]) throw new UsageError(`duet ${kind} takes a ROOM and ${what}, e.g. duet ${kind} demo ${kind === "get" ? "chart.png" : "data.csv"}`);
      return kind === "get" ? { kind, room: checked, path: rest[0], out: rest[1] } : { kind, room: checked, file: rest[0], path: rest[1] };
    }
    default:
      if (rest.length > 0) throw new UsageError(`duet ${kind} takes only a ROOM (got "${rest.join(" ").slice(0, 40)}")`);
      return { kind, room: checked };
  }
}

/** One argument of `duet tools` as the chat's text would hold it: a header whose value the shell kept whole with its spaces is quoted again. */
function toolsWord(arg: string): string {
  const header = /^([^\s=:"]+)([=:])([^"]*\s[^"]*)$/.exec(arg);
  return header ? `${header[1]}${header[2]}"${header[3]}"` : arg;
}
