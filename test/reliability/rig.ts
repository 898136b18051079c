import { randomBytes } from "node:crypto";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startExecutor, type ExecutorConfig, type RunningExecutor } from "@duet/sandbox";
import { sandboxName } from "@duet/shared";
import { startStack, type Stack } from "../helpers/stack.ts";
import { type Fault, type PassThrough, startPassThrough } from "./pass-through.ts";

/**
 * The parts every reliability test drives: the real Worker under workerd (with
 * the fake model) and the real bubblewrap executor, where commands really run,
 * reached through a pass-through that records every command and can make the
 * sandbox host fail on cue. The executor can be stopped and started again on
 * the same workspaces, as a sandbox host going down and coming back would.
 */

export interface Rig {
  stack: Stack;
  /** Commands the executor was asked to run, in order (warm-up `true`s included). */
  executed(): string[];
  /** How many times the executor answered a command "busy" (503: its line was full). */
  busyAnswers(): number;
  /** The next `times` commands containing `marker` fail this way instead of reaching the executor. */
  failNextCommand(marker: string, fault: Fault, times?: number): void;
  /** Stops the executor: the Worker's next command finds nobody there. */
  stopSandbox(): Promise<void>;
  /** Starts the executor again on the same workspaces. */
  startSandbox(): Promise<void>;
  /** A file in a room's workspace, read on the host (null when it does not exist). */
  workspaceFile(room: string, name: string): string | null;
  /** Whether the room's workspace folder exists on the host. */
  hasWorkspace(room: string): boolean;
  stop(): Promise<void>;
}

/** `executor` overrides the executor's own settings (its line's length, say); `vars` are the Worker's. */
export async function startRig(vars: Record<string, string> = {}, executor: Partial<ExecutorConfig> = {}): Promise<Rig> {
  const root = mkdtempSync(join(tmpdir(), "duet-reliability-sandbox-"));
  const token = randomBytes(16).toString("hex");
  const start = () => startExecutor({ port: 0, root, token, ...executor }, () => {});
  let sandbox: RunningExecutor | null = await start();
  const scripted = new Map<string, { fault: Fault; left: number }>();
  const proxy = await startPassThrough(
    () => sandbox?.url ?? null,
    (c) => {
      const command = c.path === "/api/execute" ? String(c.body?.command ?? "") : "";
      const marker = [...scripted.keys()].find((m) => command.includes(m));
      if (!marker) return null;
      const script = scripted.get(marker)!;
      if (--script.left === 0) scripted.delete(marker);
      return script.fault;
    },
  );
  const stack = await startStack({ executor: "real", vars: { SANDBOX_URL: proxy.url, SANDBOX_TOKEN: token, ...vars } });
  const workspace = (room: string) => join(root, "sessions", sandboxName(room));
  return {
    stack,
    executed: () => proxy.crossings.filter((c) => c.path === "/api/execute").map((c) => String(c.body?.command)),
    busyAnswers: () => proxy.crossings.filter((c) => c.path === "/api/execute" && c.status === 503).length,
    failNextCommand: (marker, fault, times = 1) => void scripted.set(marker, { fault, left: times }),
    async stopSandbox() {
      await sandbox?.close();
      sandbox = null;
    },
    async startSandbox() {
      sandbox ??= await start();
    },
    workspaceFile(room, name) {
      const path = join(workspace(room), name);
      return existsSync(path) ? readFileSync(path, "utf8") : null;
    },
    hasWorkspace: (room) => existsSync(workspace(room)),
    async stop() {
      await stack.stop();
      await proxy.close();
      await sandbox?.close();
      rmSync(root, { recursive: true, force: true });
    },
  };
}

/** The Slack channel room the bot uses for a channel (channel scope, the default). */
export const slackRoom = (teamId: string, channel: string) => `slack-${teamId}-${channel}`;
