import { CUT_OFF_NOTE, NOT_RUN_NOTE, PLACEHOLDER_NOTE, PR_TITLE_MAX_CHARS } from "@duet/shared";
import { commandOf, inlineCode, isPlaceholder } from "./command.ts";
import { TagScanner, type ScanItem } from "./tag-scanner.ts";
import { TextOut } from "./text-out.ts";
import { toolCallOfTag, toolCommand } from "./tool-tag.ts";

/**
 * Reads what a model wrote, fed in pieces as they arrive (a stream) or all at once.
 * It hands out the explanation as text deltas that never hold a `<run>` tag or part
 * of one, and each command as soon as its closing tag arrives. Only the model's
 * text is ever read here: command output never is, so text a command prints can
 * never make Duet run something.
 */
export type ReaderEvent = { type: "text"; delta: string } | { type: "command"; index: number; cmd: string };

export interface ReadReply {
  /** What people see: the model's words (commands in sentences as inline code) and the notes. The text deltas joined. */
  explanation: string;
  /** Commands to run, in order, at most the cap. */
  commands: string[];
  /** Commands beyond the cap: listed, never run. */
  skipped: string[];
  /** What Duet did not run and why (a placeholder, a command cut off); also at the end of `explanation`. */
  notes: string[];
  /** Workspace paths the model attached with `<attach>`, in order, each once. */
  attachments: string[];
  /** The model asked to propose its change as a pull request (`<pr>title</pr>`): the title, "" for none; null when it did not. */
  pr: string | null;
  /** Facts the model proposed with `<remember>`, as written (checked by the turn), in order, each once; never pinned here. */
  facts: string[];
}

/** The notes' words live in shared, where `pnpm eval` reads them too. */
export { CUT_OFF_NOTE, NOT_RUN_NOTE, PLACEHOLDER_NOTE };
export const TOOL_NAMELESS_NOTE = 'A tool call named no `server.tool` (write `<tool name="server.tool">{…}</tool>`), so it was not run.';
const SHELL_LANGUAGES = new Set(["sh", "bash", "shell", "zsh", "console", "shell-session", "terminal"]);
/** A line that announces predicted output ("Output:", "Expected output:"). */
const OUTPUT_LABEL = /^\s*\**\s*((expected|example|sample|predicted)\s+)?(output|result)s?\s*:?\s*\**\s*:?\s*$/i;
const LIST_MARKER = /^\s*([-*+]|\d+[.)])\s*$/;
const CLOSING_FENCE = /^\s*```+\s*$/;
/** After a command, only punctuation: "List them: <run>ls</run>." ends with the command. */
const TRAILING_PUNCTUATION = /^[\s.:;,!…]*$/;

type Seg = { kind: "text"; text: string } | { kind: "tag"; shown: string };

interface Fence {
  opener: string;
  shell: boolean;
  /** Opened right after a command: a block with no tags in it is predicted output. */
  afterCommand: boolean;
  label: string | null;
  /** Lines not yet shown: a block is shown once it has content that is not tags. */
  held: string[];
  hasTags: boolean;
  shown: boolean;
}

export class ModelTextReader {
  private readonly scanner = new TagScanner();
  private readonly out = new TextOut();
  private events: ReaderEvent[] = [];
  /** The current line. Held until it is complete, unless it is plain prose (then streamed as it comes). */
  private line: Seg[] = [];
  private lineWritten = 0;
  private lineStreaming = false;
  private fence: Fence | null = null;
  private afterCommand = false;
  private label: string | null = null;
  private readonly commands: string[] = [];
  private readonly skipped: string[] = [];
  private readonly notes: string[] = [];
  private readonly attachments: string[] = [];
  private pr: string | null = null;
  private readonly facts: string[] = [];

  constructor(private readonly maxCommands: number) {}

  push(chunk: string): ReaderEvent[] {
    for (const item of this.scanner.push(chunk)) this.take(item);
    return this.drain();
  }

  /**
   * The blank after the text handed out so far, written once more text comes
   * (the model wrote "word " or a line break), so its last word is whole; ""
   * when none.
   */
  get blankFollows(): string {
    return this.out.blankPending;
  }

  /** The end of the model's text: the last deltas, and the whole reading. */
  finish(): { events: ReaderEvent[]; reply: ReadReply } {
    const end = this.scanner.finish();
    for (const item of end.items) this.take(item);
    const cut = end.unclosedBody === null ? "" : commandOf(end.unclosedBody);
    if (cut) this.notes.push(`${CUT_OFF_NOTE} (${inlineCode(firstLine(cut))}), so it was not run.`);
    if (this.line.length > 0) this.endLine();
    if (this.fence) this.endFence();
    this.writeLabel();
    for (const note of this.notes) this.out.write(`\n\n_${note}_`);
    const events = this.drain();
    return { events, reply: { explanation: this.out.all, commands: [...this.commands], skipped: [...this.skipped], notes: [...this.notes], attachments: [...this.attachments], pr: this.pr, facts: [...this.facts] } };
  }

  private take(item: ScanItem): void {
    if (item.kind === "tag" && item.tag === "pr") {
      // The proposal follows the answer; the tag itself shows nothing. Read leniently: one line, the last tag wins.
      this.pr = prTitleOf(item.body);
    } else if (item.kind === "tag" && item.tag === "remember") {
      // A proposal for a person to pin with a click; the tag itself shows nothing.
      const fact = item.body.replace(/\s+/g, " ").trim();
      if (fact && !this.facts.includes(fact)) this.facts.push(fact);
    } else if (item.kind === "tag" && item.tag === "attach") {
      // The file goes with the answer; the tag itself shows nothing.
      const path = item.body.trim();
      if (path && !this.attachments.includes(path)) this.attachments.push(path);
    } else if (item.kind === "tag" && item.tag === "tool") {
      // A tool call is one more command (see tool-tag.ts); one with no `server.tool` name is said, never run.
      const call = toolCallOfTag(item.body);
      if (call) this.takeCommand(toolCommand(call));
      else this.notes.push(TOOL_NAMELESS_NOTE);
    } else if (item.kind === "tag") {
      this.takeCommand(commandOf(item.body));
    } else {
      const parts = item.text.split("\n");
      parts.forEach((part, i) => {
        if (part) this.line.push({ kind: "text", text: part });
        if (i < parts.length - 1) this.endLine();
      });
    }
    this.streamLine();
  }

  private takeCommand(cmd: string): void {
    if (cmd && isPlaceholder(cmd)) {
      this.notes.push(`${inlineCode(cmd)} ${PLACEHOLDER_NOTE}`);
    } else if (cmd && this.commands.length < this.maxCommands) {
      this.flushText();
      this.events.push({ type: "command", index: this.commands.length, cmd });
      this.commands.push(cmd);
    } else if (cmd) {
      this.skipped.push(cmd);
    }
    // A tag the model put in inline code itself (`<run>ls</run>`) already has its backticks.
    const last = this.line.at(-1);
    const quoted = last?.kind === "text" && last.text.endsWith("`") && !last.text.endsWith("``");
    this.line.push({ kind: "tag", shown: !cmd ? "" : quoted && !cmd.includes("\n") ? cmd : inlineCode(cmd) });
  }

  /**
   * Writes a line of prose as it arrives; a line that may open a code block, or may
   * be predicted output, waits. Commands wait until text follows them on the line.
   */
  private streamLine(): void {
    if (!this.lineStreaming) {
      if (this.fence || this.afterCommand || this.label !== null) return;
      const text = textOf(this.line).trimStart();
      if (!text || text.startsWith("```") || "```".startsWith(text)) return;
      this.lineStreaming = true;
    }
    const end = Math.max(this.lineWritten, shownEnd(this.line));
    this.writeSegs(this.line.slice(this.lineWritten, end));
    this.lineWritten = end;
  }

  private endLine(): void {
    const segs = this.line;
    const streamed = this.lineStreaming;
    const written = this.lineWritten;
    this.line = [];
    this.lineWritten = 0;
    this.lineStreaming = false;
    const text = textOf(segs);
    const hasTag = segs.some((s) => s.kind === "tag");
    if (this.fence) return this.fenceLine(text, hasTag);
    if (streamed) {
      this.writeSegs(segs.slice(written, Math.max(written, shownEnd(segs))));
      this.out.write("\n");
      this.afterCommand = endsWithCommand(segs);
      return;
    }
    if (!hasTag && text.trimStart().startsWith("```")) return this.openFence(text);
    if (!text.trim()) {
      // A line of only tags is dropped: its commands' output follows in the reply.
      if (hasTag) this.afterCommand = true;
      else this.out.write("\n");
      return;
    }
    if (this.afterCommand && !hasTag && OUTPUT_LABEL.test(text)) {
      this.writeLabel();
      this.label = text;
      return;
    }
    this.writeLabel();
    this.writeSegs(segs.slice(0, shownEnd(segs)));
    this.out.write("\n");
    this.afterCommand = endsWithCommand(segs);
  }

  private openFence(opener: string): void {
    const lang = opener.trim().slice(3).trim().toLowerCase();
    this.fence = {
      opener,
      shell: SHELL_LANGUAGES.has(lang),
      afterCommand: this.afterCommand || this.label !== null,
      label: this.label,
      held: [],
      hasTags: false,
      shown: false,
    };
    this.label = null;
    this.afterCommand = false;
  }

  private fenceLine(text: string, hasTag: boolean): void {
    const fence = this.fence!;
    if (!hasTag && CLOSING_FENCE.test(text)) return this.closeFence(text);
    if (hasTag) fence.hasTags = true;
    // Tags inside a code block are taken out; a line that held only tags goes with them.
    if (hasTag && !text.trim()) return;
    if (fence.shown) return this.out.write(`${text}\n`);
    fence.held.push(text);
    if (text.trim() && !fence.afterCommand) this.showFence(fence);
  }

  private closeFence(closer: string): void {
    const fence = this.fence!;
    this.fence = null;
    if (!fence.shown && !this.keepHeldFence(fence)) return;
    if (!fence.shown) this.showFence(fence);
    this.out.write(`${closer}\n`);
    if (fence.shell && !fence.hasTags) this.out.write(`${NOT_RUN_NOTE}\n`);
  }

  /** A block cut off before its closing fence is closed, so chat does not show the rest as code. */
  private endFence(): void {
    const fence = this.fence!;
    this.fence = null;
    if (!fence.shown && !this.keepHeldFence(fence)) return;
    if (!fence.shown) this.showFence(fence);
    this.out.write("```\n");
    if (fence.shell && !fence.hasTags) this.out.write(`${NOT_RUN_NOTE}\n`);
  }

  /** A held block is dropped when it is predicted output (right after a command, no tags) or empty once tags are gone. */
  private keepHeldFence(fence: Fence): boolean {
    if (fence.afterCommand && !fence.hasTags) return false;
    return fence.held.some((l) => l.trim());
  }

  private showFence(fence: Fence): void {
    if (fence.label !== null) this.out.write(`${fence.label}\n`);
    this.out.write(`${fence.opener}\n`);
    for (const l of fence.held) this.out.write(`${l}\n`);
    fence.held = [];
    fence.shown = true;
  }

  private writeLabel(): void {
    if (this.label === null) return;
    this.out.write(`${this.label}\n`);
    this.label = null;
  }

  private writeSegs(segs: Seg[]): void {
    for (const s of segs) this.out.write(s.kind === "text" ? s.text : s.shown);
  }

  private flushText(): void {
    const delta = this.out.take();
    if (delta) this.events.push({ type: "text", delta });
  }

  private drain(): ReaderEvent[] {
    this.flushText();
    const events = this.events;
    this.events = [];
    return events;
  }
}

/** Reads a whole answer at once. */
export function readModelText(text: string, maxCommands: number): ReadReply {
  const reader = new ModelTextReader(maxCommands);
  reader.push(text);
  return reader.finish().reply;
}

function textOf(segs: Seg[]): string {
  return segs.map((s) => (s.kind === "text" ? s.text : "")).join("");
}

/**
 * Where a line's shown part ends. A command inside a sentence keeps its place as
 * inline code; commands that end the line ("Let me look. <run>ls</run>") are left
 * out, as their output follows in the reply, unless the line is only a list
 * marker, where the command is the item ("1. <run>ls</run>").
 */
function shownEnd(segs: Seg[]): number {
  const lastText = segs.findLastIndex((s) => s.kind === "text" && s.text.trim() !== "");
  if (lastText >= 0 && LIST_MARKER.test(textOf(segs))) return segs.length;
  return lastText + 1;
}

function endsWithCommand(segs: Seg[]): boolean {
  const last = segs.map((s) => s.kind).lastIndexOf("tag");
  return last >= 0 && TRAILING_PUNCTUATION.test(textOf(segs.slice(last + 1)));
}

function firstLine(cmd: string): string {
  const [first, ...rest] = cmd.split("\n");
  return rest.length ? `${first} …` : first;
}

/** The title a `<pr>` tag gives: on one line, without control characters, at most the title's limit; "" when it names none. */
export function prTitleOf(body: string): string {
  return body
    .replace(/[\p{Cc}\p{Cf}]+/gu, " ")
    .replace(/\s+/g, " ")
    .trim()
    .slice(0, PR_TITLE_MAX_CHARS)
    .trim();
}
