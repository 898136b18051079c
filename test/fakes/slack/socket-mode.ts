import type { IncomingMessage, Server } from "node:http";
import type { Duplex } from "node:stream";
import { type WebSocket, WebSocketServer } from "ws";

/**
 * Slack's Socket Mode side: the URL from `apps.connections.open` upgrades to a
 * WebSocket, Slack greets with `{"type":"hello"}`, then pushes envelopes
 * (`events_api`, `slash_commands`, ...) that the app must ack by echoing the
 * `envelope_id` (with an optional `payload`, e.g. a slash command's reply).
 */

export interface SocketAck {
  envelope_id: string;
  payload?: Record<string, unknown>;
}

export interface EnvelopeOptions {
  retryAttempt?: number;
  retryReason?: string;
  /** How long to wait for the ack before rejecting (Slack gives up after ~3 s; tests give more). */
  ackTimeoutMs?: number;
}

export class FakeSocketMode {
  private readonly wss = new WebSocketServer({ noServer: true });
  private readonly sockets = new Set<WebSocket>();
  private readonly pending = new Map<string, (ack: SocketAck) => void>();
  private readonly connectedWaiters: (() => void)[] = [];
  private seq = 0;
  private ticket = 0;
  /** Every connection ever opened; a restarted bot opens a new one. */
  connections = 0;

  /** `changed` is called whenever a connection opens or closes, so tests can wait on it. */
  constructor(
    private readonly appId: string,
    private readonly changed: () => void = () => {},
  ) {}

  attach(server: Server): void {
    server.on("upgrade", (req: IncomingMessage, socket: Duplex, head: Buffer) => {
      if (!req.url?.startsWith("/socket-mode")) return socket.destroy();
      this.wss.handleUpgrade(req, socket, head, (ws) => this.accept(ws));
    });
  }

  newUrl(base: string): string {
    this.ticket += 1;
    return `${base.replace(/^http/, "ws")}/socket-mode?ticket=${this.ticket}`;
  }

  get open(): number {
    return [...this.sockets].filter((s) => s.readyState === s.OPEN).length;
  }

  /** Resolves once at least one app connection has been greeted. */
  whenConnected(): Promise<void> {
    if (this.open > 0) return Promise.resolve();
    return new Promise((resolve) => this.connectedWaiters.push(resolve));
  }

  /**
   * Push an envelope to one connected app and wait for its ack, as Slack does.
   * `type` is `events_api` for Events API payloads, `slash_commands` for commands.
   */
  async deliver(type: string, payload: unknown, opts: EnvelopeOptions = {}): Promise<SocketAck> {
    const socket = [...this.sockets].find((s) => s.readyState === s.OPEN);
    if (!socket) throw new Error("fake Slack: no Socket Mode connection is open");
    this.seq += 1;
    const envelopeId = `env-${this.seq}-${Math.random().toString(36).slice(2, 8)}`;
    const acked = new Promise<SocketAck>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(envelopeId);
        reject(new Error(`fake Slack: envelope ${envelopeId} (${type}) was not acked`));
      }, opts.ackTimeoutMs ?? 10_000);
      this.pending.set(envelopeId, (ack) => {
        clearTimeout(timer);
        resolve(ack);
      });
    });
    socket.send(
      JSON.stringify({
        envelope_id: envelopeId,
        type,
        payload,
        accepts_response_payload: type !== "events_api",
        ...(opts.retryAttempt !== undefined ? { retry_attempt: opts.retryAttempt, retry_reason: opts.retryReason ?? "timeout" } : {}),
      }),
    );
    return acked;
  }

  /** Ask connected apps to reconnect, as Slack does when it recycles a connection. */
  sendDisconnect(reason = "refresh_requested"): void {
    for (const s of this.sockets) s.send(JSON.stringify({ type: "disconnect", reason }));
  }

  /** Cuts every app connection without a goodbye, as a network failure does. */
  drop(): void {
    for (const s of this.sockets) s.terminate();
  }

  async close(): Promise<void> {
    for (const s of this.sockets) s.terminate();
    await new Promise<void>((resolve) => this.wss.close(() => resolve()));
  }

  private accept(ws: WebSocket): void {
    this.connections += 1;
    this.sockets.add(ws);
    const gone = () => {
      this.sockets.delete(ws);
      this.changed();
    };
    ws.on("close", gone);
    ws.on("error", gone);
    ws.on("message", (data) => {
      let msg: SocketAck;
      try {
        msg = JSON.parse(String(data)) as SocketAck;
      } catch {
        return;
      }
      const resolve = msg.envelope_id ? this.pending.get(msg.envelope_id) : undefined;
      if (resolve) {
        this.pending.delete(msg.envelope_id);
        resolve(msg);
      }
    });
    ws.send(
      JSON.stringify({
        type: "hello",
        num_connections: this.open,
        debug_info: { host: "fake-slack", approximate_connection_time: 18060 },
        connection_info: { app_id: this.appId },
      }),
    );
    for (const w of this.connectedWaiters.splice(0)) w();
    this.changed();
  }
}
