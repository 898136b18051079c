import { Sandbox } from "@cloudflare/sandbox";

interface StandInEnv {
  /** The bubblewrap executor playing the container's control server. */
  CONTAINER_STAND_IN_URL: string;
  SANDBOX_TOKEN: string;
}

/**
 * What workerd gives a Durable Object class that has a container configured:
 * `ctx.container`, here for a container that is always running (the executor
 * is started before the Worker) and is never reached over TCP (containerFetch
 * below goes to the executor over HTTP instead).
 */
function withContainer(ctx: DurableObjectState<{}>): DurableObjectState<{}> {
  const container = {
    running: true,
    start: () => undefined,
    monitor: () => new Promise<void>(() => undefined),
    destroy: async () => undefined,
    signal: () => undefined,
    getTcpPort: () => {
      throw new Error("the stand-in container has no TCP ports; containerFetch goes to the executor");
    },
  };
  // An own property shadows the runtime's (absent) one; the object itself must stay the real one.
  Object.defineProperty(ctx, "container", { value: container, configurable: true });
  return ctx;
}

/**
 * The real @cloudflare/sandbox `Sandbox` Durable Object with one thing swapped:
 * there is no container here (that needs Docker and a Cloudflare account), so
 * the HTTP requests the SDK would send to the container's control server go to
 * the local bubblewrap executor, which speaks that API's `/api/execute`. Session
 * creation is answered here: a container session is a shell with a working
 * directory, and the executor makes a session's workspace on its first command.
 * Destroying the sandbox wipes its session's workspace, as a destroyed container
 * takes its filesystem with it. Everything above that (getSandbox, the SDK's
 * session handling, exec's options and result mapping) is the SDK's own code.
 */
export class ContainerlessSandbox extends Sandbox<StandInEnv> {
  constructor(ctx: DurableObjectState<{}>, env: StandInEnv) {
    super(withContainer(ctx), env);
  }

  override async containerFetch(requestOrUrl: Request | string | URL, portOrInit?: number | RequestInit, _port?: number): Promise<Response> {
    const request = requestOrUrl instanceof Request ? requestOrUrl : new Request(requestOrUrl, typeof portOrInit === "object" ? portOrInit : undefined);
    const path = new URL(request.url).pathname;
    if (path === "/api/session/create") {
      const { id } = (await request.json()) as { id: string };
      return Response.json({ success: true, id, timestamp: new Date().toISOString() });
    }
    return fetch(`${this.env.CONTAINER_STAND_IN_URL}${path}`, {
      method: request.method,
      headers: { "content-type": "application/json", authorization: `Bearer ${this.env.SANDBOX_TOKEN}` },
      body: request.method === "GET" || request.method === "HEAD" ? undefined : await request.text(),
      signal: request.signal,
    });
  }

  override async destroy(): Promise<void> {
    const session = `sandbox-${this.ctx.id.name}`;
    const res = await fetch(`${this.env.CONTAINER_STAND_IN_URL}/api/sessions/${encodeURIComponent(session)}`, {
      method: "DELETE",
      headers: { authorization: `Bearer ${this.env.SANDBOX_TOKEN}` },
    });
    if (!res.ok) throw new Error(`the stand-in container could not be destroyed: ${res.status} ${await res.text()}`);
  }
}
