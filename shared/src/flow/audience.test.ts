import { describe, expect, it } from "vitest";
import { WorkerClient } from "../client/client.ts";
import type { DuetCommand } from "../commands/commands.ts";
import { commandAudience, type Audience } from "./audience.ts";
import { runCommand } from "./flow.ts";
import { helpEntries } from "./help.ts";
import type { ChatSurface } from "./surface.ts";

/**
 * One table says who sees each reply: what the flow posts (publicly or to the
 * asker), what Discord defers an interaction as, and what help says is private
 * must all be read from it, so they cannot disagree.
 */

/** What the Worker answers per route, so each command's flow succeeds. */
function workerBody(method: string, path: string): unknown {
  if (path.endsWith("/messages")) return { messages: [] };
  if (path.endsWith("/audit")) return { entries: [] };
  if (path.endsWith("/schedules")) return { schedules: [] };
  if (path.endsWith("/policy")) return { runPolicy: "approve" };
  if (path.endsWith("/model")) return { model: "m1", source: "default", choices: ["m1", "m2"] };
  if (path.endsWith("/sandbox/exec")) return { result: { stdout: "hi\n", stderr: "", exitCode: 0, success: true, truncated: false, durationMs: 2 } };
  if (path.endsWith("/stop")) return { stopped: true };
  if (path === "/api/info") return { network: "none" };
  if (method === "DELETE") return { ok: true, errors: [] };
  return {};
}

async function shownTo(command: DuetCommand, status = 200): Promise<Audience[]> {
  const shown: Audience[] = [];
  const fetch: typeof globalThis.fetch = async (input, init) => {
    const url = new URL(String(input));
    return Response.json(status === 200 ? workerBody(init?.method ?? "GET", url.pathname) : { error: { code: "internal", message: "down" } }, { status });
  };
  const worker = new WorkerClient({ baseUrl: "http://worker.test", token: "t", fetch, retries: 0 });
  const surface: ChatSurface = {
    post: async () => (shown.push("everyone"), { id: "1" }),
    postPrivate: async () => (shown.push("asker"), { id: "p" }),
    edit: async () => true,
    showProgress: () => async () => {},
  };
  await runCommand({ worker, log: () => {} }, surface, { room: "slack-T1-C1", user: "U1", key: "k1" }, command);
  return shown;
}

const COMMANDS: DuetCommand[] = [
  { kind: "run", cmd: "ls" },
  { kind: "reset" },
  { kind: "stop" },
  { kind: "history" },
  { kind: "audit" },
  { kind: "schedules" },
  { kind: "help" },
  { kind: "help", problem: "Unknown command `dance`." },
  { kind: "policy" },
  { kind: "policy", runPolicy: "auto" },
  { kind: "model" },
  { kind: "model", model: "m2" },
];

describe("who sees a reply", () => {
  it.each(COMMANDS.map((c) => [JSON.stringify(c), c] as const))("the flow shows %s to whom Discord defers it for", async (_, command) => {
    expect(await shownTo(command)).toEqual([commandAudience(command, false)]);
  });

  it("shows a refused command to the asker alone, as Discord defers a refusal", async () => {
    expect(commandAudience({ kind: "run", cmd: "ls" }, true)).toBe("asker");
    expect(commandAudience({ kind: "policy", runPolicy: "auto" }, true)).toBe("asker");
  });

  it("says a setting changed to everyone, but a failed change to the asker alone", async () => {
    expect(await shownTo({ kind: "policy", runPolicy: "auto" }, 500)).toEqual(["asker"]);
    expect(await shownTo({ kind: "model", model: "m2" }, 500)).toEqual(["asker"]);
    // A question's or a command's failure answers it where it was asked.
    expect(await shownTo({ kind: "run", cmd: "ls" }, 500)).toEqual(["everyone"]);
  });

  it("marks in help exactly the commands only the asker ever sees", () => {
    const marked = helpEntries({ ask: "ask", run: "run", history: "history", reset: "reset", policy: "policy", model: "model", repo: "repo", pr: "pr", tools: "tools", usage: "usage", audit: "audit", stop: "stop", get: "get", schedule: "schedule", schedules: "schedules", unschedule: "unschedule", remember: "remember", memory: "memory", forget: "forget", help: "help" })
      .filter(([, purpose]) => purpose.endsWith("(only you see it)"))
      .map(([syntax]) => syntax);
    expect(marked).toEqual(["history", "usage", "audit", "schedules", "memory"]);
  });
});
