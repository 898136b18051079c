import { DuetSandbox } from "../../src/sandbox/durable-sandbox.ts";
import { StandInFiles } from "./container-files.ts";
import { StandInProcesses, type ProcessSeen } from "./processes.ts";

type StandInEnv = ConstructorParameters<typeof DuetSandbox>[1] & {
  /** The bubblewrap executor playing the container's control server. */
  CONTAINER_STAND_IN_URL: string;
  SANDBOX_TOKEN: string;
};

/** What the SDK told the container about its network: start options and outbound interceptions. */
export interface NetworkSeen {
  start?: { enableInternet?: boolean; env?: Record<string, string> };
  /** Hosts whose HTTP / HTTPS traffic goes through the outbound proxy ("*" for all). */
  interceptedHttp: string[];
  interceptedHttps: string[];
}

/**
 * What workerd gives a Durable Object class that has a container configured:
 * `ctx.container`, here for a container the SDK starts (recording what it was
 * started with and which outbound traffic it routes through the Worker's proxy)
 * and whose ports answer the SDK's readiness checks; containerFetch below sends
 * the SDK's real requests to the executor over HTTP instead. A signal stops
 * it at once (`stopped` wipes its disk, as a stopped container loses it).
 */
function withContainer(ctx: DurableObjectState<{}>, seen: NetworkSeen, proxies: Map<string, Fetcher>, stopped: () => void): DurableObjectState<{}> {
  const container = {
    running: false,
    start(options: NetworkSeen["start"]) {
      seen.start = options;
      container.running = true;
    },
    monitor: () => new Promise<void>(() => undefined),
    destroy: async () => undefined,
    signal: () => {
      if (!container.running) return;
      container.running = false;
      stopped();
    },
    getTcpPort: () => ({ fetch: async () => new Response("ok") }),
    interceptAllOutboundHttp: async (proxy: Fetcher) => {
      seen.interceptedHttp.push("*");
      proxies.set("*", proxy);
    },
    interceptOutboundHttp: async (host: string, proxy: Fetcher) => {
      seen.interceptedHttp.push(host);
      proxies.set(host, proxy);
    },
    interceptOutboundHttps: async (host: string) => {
      seen.interceptedHttps.push(host);
    },
  };
  // An own property shadows the runtime's (absent) one; the object itself must stay the real one.
  Object.defineProperty(ctx, "container", { value: container, configurable: true });
  return ctx;
}

/** The executor's longest deadline: a container's process runs until it ends or is killed. */
const PROCESS_DEADLINE_MS = 600_000;

/**
 * The production `Sandbox` Durable Object (the SDK's class with the network from
 * SANDBOX_NETWORK, durable-sandbox.ts) with one thing swapped:
 * there is no container here (that needs Docker and a Cloudflare account), so
 * the HTTP requests the SDK would send to the container's control server go to
 * the local bubblewrap executor, which speaks that API's `/api/execute`. Session
 * creation is answered here: a container session is a shell with a working
 * directory, and the executor makes a session's workspace on its first command.
 * The process API (streamed commands, listing, kills) is processes.ts, the file
 * API (writes, streamed reads, listings) container-files.ts.
 * Destroying the sandbox, or stopping its container (a sleep, a crash), wipes
 * its session's workspace, as a container takes its filesystem with it. Everything above that (getSandbox, the SDK's
 * session handling, exec's options and result mapping) is the SDK's own code.
 */
export class ContainerlessSandbox extends DuetSandbox {
  private readonly seen: NetworkSeen;
  private readonly proxies: Map<string, Fetcher>;
  private readonly processes: StandInProcesses;
  private readonly files: StandInFiles;
  /** The wipe of a stopped container's disk, which the next start waits for. */
  private wiping: Promise<void> = Promise.resolve();
  /** Every request the SDK sent to the container ("POST /api/execute/stream"), oldest first. */
  private readonly requests: string[] = [];

  constructor(ctx: DurableObjectState<{}>, env: StandInEnv) {
    const seen: NetworkSeen = { interceptedHttp: [], interceptedHttps: [] };
    const proxies = new Map<string, Fetcher>();
    super(
      withContainer(ctx, seen, proxies, () => (this.wiping = this.wipe())),
      env,
    );
    this.seen = seen;
    this.proxies = proxies;
    this.processes = new StandInProcesses((command, sessionId, signal) =>
      this.toExecutor("/api/execute", { method: "POST", body: JSON.stringify({ command, sessionId, timeoutMs: PROCESS_DEADLINE_MS }), signal }),
    );
    this.files = new StandInFiles((path, init) =>
      fetch(`${this.standIn.CONTAINER_STAND_IN_URL}${path}`, { ...init, headers: { ...init.headers, authorization: `Bearer ${this.standIn.SANDBOX_TOKEN}` } }),
    );
  }

  /**
   * For tests: the container sleeps as production's does after `sleepAfter`
   * idle (the SDK's onActivityExpired: Duet saves, then the container is
   * stopped), and its disk is gone.
   */
  async sleep(): Promise<void> {
    await this.onActivityExpired();
    await this.wiping;
  }

  /** For tests: the container dies without warning (a crash, a deploy replacing it); its disk is gone. */
  async crash(): Promise<void> {
    await this.stop("SIGKILL");
    await this.wiping;
  }

  /** For tests: a command run in the container outside any turn (a process left running in the background), its stdout. */
  async runInContainer(command: string): Promise<string> {
    return (await this.exec(command)).stdout;
  }

  private get standIn(): StandInEnv {
    return this.env as unknown as StandInEnv;
  }

  /** For tests: what the container was given. */
  async networkSeen(): Promise<NetworkSeen> {
    return this.seen;
  }

  /** For tests: the processes the container was asked to run. */
  async processesSeen(): Promise<ProcessSeen[]> {
    return this.processes.seen();
  }

  /** For tests: hold back the answers to stream requests (their processes run meanwhile) until released. */
  async holdStreams(): Promise<void> {
    this.processes.hold();
  }

  async releaseStreams(): Promise<void> {
    this.processes.release();
  }

  /** For tests: the requests the SDK sent to the container. */
  async requestsSeen(): Promise<string[]> {
    return this.requests;
  }

  /**
   * For tests: what a request from inside the container to `url` gets from the
   * outbound proxy the SDK installed, or null when that traffic is not routed
   * through it (it then goes by the container's own route, enableInternet).
   */
  async probe(url: string): Promise<{ status: number; body: string } | null> {
    const proxy = this.proxies.get(new URL(url).hostname) ?? this.proxies.get("*");
    if (!proxy) return null;
    const res = await proxy.fetch(url);
    return { status: res.status, body: await res.text() };
  }

  override async containerFetch(requestOrUrl: Request | string | URL, portOrInit?: number | RequestInit, _port?: number): Promise<Response> {
    // Started the SDK's way (start options, outbound interception, readiness), as a real container is.
    if (!this.ctx.container?.running) await this.wiping;
    if (!this.ctx.container?.running) await this.startAndWaitForPorts({ ports: 3000, cancellationOptions: { instanceGetTimeoutMS: 5_000, portReadyTimeoutMS: 5_000, waitInterval: 50 } });
    const request = requestOrUrl instanceof Request ? requestOrUrl : new Request(requestOrUrl, typeof portOrInit === "object" ? portOrInit : undefined);
    const path = new URL(request.url).pathname;
    this.requests.push(`${request.method} ${path}`);
    if (path === "/api/session/create") {
      const { id } = (await request.json()) as { id: string };
      return Response.json({ success: true, id, timestamp: new Date().toISOString() });
    }
    const answered = (await this.processes.handle(request, path)) ?? (await this.files.handle(request, path));
    if (answered) return answered;
    return this.toExecutor(path, {
      method: request.method,
      body: request.method === "GET" || request.method === "HEAD" ? undefined : await request.text(),
      signal: request.signal,
    });
  }

  private toExecutor(path: string, init: { method: string; body?: string; signal: AbortSignal }): Promise<Response> {
    return fetch(`${this.standIn.CONTAINER_STAND_IN_URL}${path}`, {
      ...init,
      headers: { "content-type": "application/json", authorization: `Bearer ${this.standIn.SANDBOX_TOKEN}` },
    });
  }

  override async destroy(): Promise<void> {
    await this.wipe();
  }

  /** The container's disk: its session's workspace in the executor. */
  private async wipe(): Promise<void> {
    const session = `sandbox-${this.ctx.id.name}`;
    const res = await fetch(`${this.standIn.CONTAINER_STAND_IN_URL}/api/sessions/${encodeURIComponent(session)}`, {
      method: "DELETE",
      headers: { authorization: `Bearer ${this.standIn.SANDBOX_TOKEN}` },
    });
    if (!res.ok) throw new Error(`the stand-in container's disk could not be wiped: ${res.status} ${await res.text()}`);
  }
}
