import { DuetError, RUN_OUTPUT_MAX_BYTES, type RunResult, workspaceOfRoom } from "@duet/shared";
import { toolCallOf, type ToolCall } from "../reply/tool-tag.ts";
import { capBytes } from "../text-bytes.ts";
import { LazyTable } from "../storage/lazy-table.ts";
import { isReadOnly, toolsPrompt } from "./tool-prompt.ts";
import type { CallOutcome, ServerTools, ServerView } from "./tool-servers.ts";

/** What a room asks of its workspace's tool servers (tool-servers.ts), over RPC. */
export interface ToolServersPeer {
  has(name: string): Promise<boolean>;
  list(): Promise<ServerView[]>;
  wipe(): Promise<number>;
  tools(workspace: string, names: string[]): Promise<ServerTools[]>;
  call(workspace: string, server: string, tool: string, args: Record<string, unknown>, timeoutMs: number): Promise<CallOutcome>;
}

/** A turn's tools: what the model is told, which calls may run without approval, and running one. */
export interface ToolBox {
  /** The system prompt's tools section (null: no server enabled); lists the tools, which readOnly then knows. */
  prompt(): Promise<string | null>;
  /** True for a call of a tool the listing marked read-only in a server enabled here: it runs like an `auto` command. */
  readOnly(cmd: string): boolean;
  run(call: ToolCall, stop?: AbortSignal): Promise<RunResult>;
}

type Row = Record<string, SqlStorageValue>;

/**
 * The tool servers a room has turned on, out of its workspace's: a row each
 * in the room's SQLite. A room sees and calls only these, and only through
 * its own workspace's store, so a call from one room can never use a server
 * (or its headers) that another workspace added.
 */
export class RoomTools {
  readonly workspace: string;
  /** Made on the first server turned on: a room that never uses tools writes no table for them. */
  private readonly table: LazyTable;

  constructor(
    private readonly storage: DurableObjectStorage,
    roomId: string,
    private readonly servers: () => ToolServersPeer,
    private readonly redact: (text: string) => string,
    private readonly timeoutMs: number,
  ) {
    this.workspace = workspaceOfRoom(roomId);
    this.table = new LazyTable(storage.sql, "duet_tools", `name TEXT PRIMARY KEY, enabled_by TEXT, enabled_at INTEGER NOT NULL`);
  }

  enabled(): string[] {
    if (!this.table.exists()) return [];
    return this.storage.sql.exec<Row>(`SELECT name FROM duet_tools ORDER BY name`).toArray().map((r) => String(r.name));
  }

  /** Turns a server of the workspace on here; 404 when the workspace has no such server. */
  async enable(name: string, by: string | null): Promise<{ tools: string[] }> {
    if (!(await this.servers().has(name))) {
      throw new DuetError("not_found", `no tool server named ${name} in ${this.workspace}; add it with \`/duet tools add ${name} URL\` or PUT /api/tools/${this.workspace}/${name}`);
    }
    this.table.make();
    this.storage.sql.exec(`INSERT INTO duet_tools (name, enabled_by, enabled_at) VALUES (?, ?, ?) ON CONFLICT(name) DO NOTHING`, name, by, Date.now()).toArray();
    return { tools: this.enabled() };
  }

  disable(name: string): { tools: string[] } {
    if (this.table.exists()) this.storage.sql.exec(`DELETE FROM duet_tools WHERE name = ?`, name).toArray();
    return { tools: this.enabled() };
  }

  wipe(): void {
    if (this.table.exists()) this.storage.sql.exec(`DELETE FROM duet_tools`).toArray();
  }

  /** Forgets the workspace's servers themselves: asked by its workspace room when Duet is removed from the workspace. */
  async forgetWorkspace(): Promise<void> {
    await this.servers().wipe();
  }

  /** The tools for one turn (none when no server is enabled: no RPC then). */
  box(): ToolBox | undefined {
    const names = this.enabled();
    if (!names.length) return undefined;
    const readOnly = new Set<string>();
    return {
      prompt: async () => {
        const listed = await this.servers().tools(this.workspace, names);
        for (const s of listed) for (const t of s.tools) if (isReadOnly(t)) readOnly.add(`${s.server}.${t.name}`);
        return toolsPrompt(listed);
      },
      readOnly: (cmd) => {
        const call = toolCallOf(cmd);
        return call !== null && readOnly.has(`${call.server}.${call.tool}`);
      },
      run: (call, stop) => this.run(names, call, stop),
    };
  }

  private async run(names: string[], call: ToolCall, stop?: AbortSignal): Promise<RunResult> {
    const shown = this.redact(`tool: ${call.server}.${call.tool} ${call.args}`);
    const failed = (error: string, durationMs = 0): RunResult => ({ cmd: shown, exitCode: null, stdout: "", stderr: "", truncated: false, durationMs, error: this.redact(error) });
    if (!names.includes(call.server)) return failed(notEnabled(call.server));
    let args: unknown;
    try {
      args = JSON.parse(call.args);
    } catch {
      return failed(`the arguments for ${call.server}.${call.tool} are not JSON, so the call was not made`);
    }
    if (!args || typeof args !== "object" || Array.isArray(args)) return failed(`the arguments for ${call.server}.${call.tool} must be a JSON object, so the call was not made`);
    const started = Date.now();
    // The store's call cannot be aborted over RPC; a stop ends the wait, and the late result is dropped.
    const stopped = new Promise<CallOutcome>((resolve) => {
      if (stop?.aborted) resolve({ error: "stopped" });
      stop?.addEventListener("abort", () => resolve({ error: String((stop.reason as Error)?.message ?? "stopped") }), { once: true });
    });
    const outcome = await Promise.race([this.servers().call(this.workspace, call.server, call.tool, args as Record<string, unknown>, this.timeoutMs), stopped]);
    const durationMs = Date.now() - started;
    if ("error" in outcome) return failed(`tool server ${call.server}: ${outcome.error}`, durationMs);
    const text = capBytes(outcome.text, RUN_OUTPUT_MAX_BYTES);
    const out = this.redact(text.text);
    return { cmd: shown, exitCode: outcome.isError ? 1 : 0, stdout: outcome.isError ? "" : out, stderr: outcome.isError ? out : "", truncated: text.cut, durationMs };
  }
}

/** The line a call to a server this room has not turned on gets. */
export function notEnabled(server: string): string {
  return `${server} is not a tool server enabled in this room, so the call was not made (a room turns one on with \`/duet tools room on ${server}\`)`;
}

/** A tool call in a room with no tools enabled at all (`shown`: the call as redacted). */
export function noToolsRun(shown: string, call: ToolCall): RunResult {
  return { cmd: shown, exitCode: null, stdout: "", stderr: "", truncated: false, durationMs: 0, error: notEnabled(call.server) };
}
