/** Runs one command in the bubblewrap executor; aborting `signal` hangs up, which kills its process tree. */
export type RunCommand = (command: string, sessionId: string, signal: AbortSignal) => Promise<Response>;

/** The container's process states (@cloudflare/sandbox's ProcessStatus) the stand-in reaches. */
type Status = "running" | "completed" | "failed" | "killed" | "error";

interface StandInProcess {
  id: string;
  command: string;
  status: Status;
  startTime: Date;
  exitCode?: number;
  hangUp: AbortController;
}

/** What a test may read about a process: what it ran and how it ended. */
export interface ProcessSeen {
  id: string;
  command: string;
  status: Status;
  exitCode?: number;
}

/** 128 + SIGTERM: how a process the container's kill ended reports itself. */
const KILLED_EXIT_CODE = 143;

const encoder = new TextEncoder();

/**
 * The container's process API, as far as the SDK's `execStream`, `listProcesses`
 * and `killProcess` reach it (their paths and bodies are the SDK's CommandClient
 * and ProcessClient):
 *
 *   POST   /api/execute/stream  {command, sessionId, ...} → SSE: start, stdout, stderr, complete {exitCode}
 *   GET    /api/process/list    → {success, processes: [{id, pid?, command, status, startTime, exitCode?}]}
 *   DELETE /api/process/:id     → {success, processId}; 404 PROCESS_NOT_FOUND for an id it never had
 *
 * As in the container, a streamed command is a process in the sandbox-wide table
 * (under an id the container makes up), hanging up on its stream does not stop
 * it, and `timeoutMs` is not applied to it. Its output reaches the stream when
 * it ends (the executor answers whole), where the container's arrives line by
 * line. A kill hangs up on the executor, which kills the whole process tree.
 */
export class StandInProcesses {
  private readonly table = new Map<string, StandInProcess>();
  /** While set, stream requests start their process but are answered only once it resolves. */
  private held: { answered: Promise<void>; release: () => void } | null = null;

  constructor(private readonly run: RunCommand) {}

  /** The answer to a process API request, or null when `path` is not one. */
  async handle(request: Request, path: string): Promise<Response | null> {
    if (path === "/api/execute/stream" && request.method === "POST") {
      const { command, sessionId } = (await request.json()) as { command: string; sessionId: string };
      const answer = this.stream(command, sessionId);
      await this.held?.answered;
      return answer;
    }
    if (path === "/api/process/list" && request.method === "GET") {
      return Response.json({ success: true, processes: [...this.table.values()].map(listed), timestamp: now() });
    }
    const one = /^\/api\/process\/([^/]+)$/.exec(path);
    if (one && request.method === "DELETE") return this.kill(decodeURIComponent(one[1]));
    return null;
  }

  /**
   * For tests: until `release`, the process a stream request starts is running
   * in the container while the SDK is still waiting for the answer (and its id).
   */
  hold(): void {
    let release!: () => void;
    const answered = new Promise<void>((resolve) => (release = resolve));
    this.held = { answered, release };
  }

  release(): void {
    this.held?.release();
    this.held = null;
  }

  /** For tests: every process the container was asked to run, oldest first. */
  seen(): ProcessSeen[] {
    return [...this.table.values()].map(({ id, command, status, exitCode }) => ({ id, command, status, exitCode }));
  }

  private stream(command: string, sessionId: string): Response {
    const proc: StandInProcess = {
      id: `proc_${Date.now()}_${Math.random().toString(36).slice(2, 8)}`,
      command,
      status: "running",
      startTime: new Date(),
      hangUp: new AbortController(),
    };
    this.table.set(proc.id, proc);
    const { readable, writable } = new TransformStream<Uint8Array, Uint8Array>();
    const writer = writable.getWriter();
    // Writes after the reader went away fail; the process goes on regardless.
    const send = (event: Record<string, unknown>) => writer.write(encoder.encode(`data: ${JSON.stringify({ ...event, timestamp: now() })}\n\n`)).catch(() => undefined);
    void send({ type: "start", command });
    void (async () => {
      try {
        const res = await this.run(command, sessionId, proc.hangUp.signal);
        if (!res.ok) throw new Error(`the executor answered HTTP ${res.status}: ${await res.text()}`);
        const r = (await res.json()) as { exitCode: number; stdout: string; stderr: string };
        if (r.stdout) void send({ type: "stdout", data: r.stdout });
        if (r.stderr) void send({ type: "stderr", data: r.stderr });
        proc.exitCode = r.exitCode;
        proc.status = r.exitCode === 0 ? "completed" : "failed";
      } catch (err) {
        if (!proc.hangUp.signal.aborted) {
          proc.status = "error";
          void send({ type: "error", error: (err as Error).message });
          return;
        }
        proc.exitCode = KILLED_EXIT_CODE;
      }
      void send({ type: "complete", exitCode: proc.exitCode });
    })().finally(() => writer.close().catch(() => undefined));
    return new Response(readable, { headers: { "content-type": "text/event-stream" } });
  }

  private kill(id: string): Response {
    const proc = this.table.get(id);
    if (!proc) {
      return Response.json({ code: "PROCESS_NOT_FOUND", message: `Process ${id} not found`, context: { processId: id }, httpStatus: 404, timestamp: now() }, { status: 404 });
    }
    if (proc.status === "running") {
      proc.status = "killed";
      proc.hangUp.abort();
    }
    return Response.json({ success: true, processId: id, timestamp: now() });
  }
}

function listed(p: StandInProcess) {
  return { id: p.id, command: p.command, status: p.status, startTime: p.startTime.toISOString(), exitCode: p.exitCode };
}

function now(): string {
  return new Date().toISOString();
}
