import { randomBytes } from "node:crypto";
import { EventEmitter } from "node:events";
import type { IncomingMessage, Server } from "node:http";
import type { Duplex } from "node:stream";
import { WebSocketServer, WebSocket } from "ws";
import { guildPayload } from "./payloads.ts";
import type { World } from "./world.ts";

/**
 * The gateway half of the fake Discord (JSON encoding, no compression, which is
 * what discord.js uses without zlib-sync): HELLO, IDENTIFY -> READY and one
 * GUILD_CREATE per guild, heartbeat ACKs, RESUME -> the missed events then
 * RESUMED, and sequence numbers per session so a resume can replay.
 */

interface Dispatched {
  s: number;
  t: string;
  d: unknown;
}

interface Session {
  id: string;
  shard: [number, number];
  seq: number;
  /** Every event sent in this session, kept so a RESUME can replay what was missed. */
  sent: Dispatched[];
  ws: WebSocket | null;
}

export interface GatewayLogEntry {
  op: number;
  path: string;
  at: number;
  d?: unknown;
}

export class FakeGateway {
  readonly events = new EventEmitter();
  /** Every opcode received from clients (1 heartbeat, 2 identify, 6 resume, ...). */
  readonly received: GatewayLogEntry[] = [];
  readonly connections: { path: string; at: number }[] = [];
  /** Connections that have closed, by either side. */
  readonly closed: { path: string; at: number }[] = [];
  private readonly wss = new WebSocketServer({ noServer: true });
  private sessions: Session[] = [];
  private baseUrl = "";
  /** While true, new connections are refused, as in a gateway outage. */
  refusing = false;

  constructor(
    private readonly world: World,
    private readonly heartbeatIntervalMs: number,
  ) {
    this.events.setMaxListeners(100);
  }

  attach(server: Server, httpUrl: string): void {
    this.baseUrl = httpUrl.replace(/^http/, "ws");
    server.on("upgrade", (req: IncomingMessage, socket: Duplex, head: Buffer) => {
      const path = new URL(req.url ?? "/", "http://x").pathname;
      if (!path.startsWith("/gateway") || this.refusing) return socket.destroy();
      this.wss.handleUpgrade(req, socket, head, (ws) => this.onConnection(ws, path));
    });
  }

  get url(): string {
    return `${this.baseUrl}/gateway`;
  }

  private get resumeUrl(): string {
    // A different path from `url`, so tests can see discord.js resumed where READY told it to.
    return `${this.baseUrl}/gateway-resume`;
  }

  private onConnection(ws: WebSocket, path: string): void {
    this.connections.push({ path, at: Date.now() });
    this.send(ws, { op: 10, d: { heartbeat_interval: this.heartbeatIntervalMs }, s: null, t: null });
    ws.on("message", (raw) => {
      let payload: { op: number; d: any };
      try {
        payload = JSON.parse(String(raw));
      } catch {
        return ws.close(4002, "Error while decoding payload.");
      }
      // Heartbeat sequence and IDENTIFY's shard are kept; the token never is.
      const d = payload.op === 1 ? payload.d : payload.op === 2 ? { shard: payload.d?.shard, intents: payload.d?.intents } : undefined;
      this.received.push({ op: payload.op, path, at: Date.now(), d });
      this.handle(ws, payload);
      this.events.emit(`op${payload.op}`, payload.d);
    });
    ws.on("close", () => {
      this.closed.push({ path, at: Date.now() });
      for (const s of this.sessions) if (s.ws === ws) s.ws = null;
    });
  }

  private handle(ws: WebSocket, payload: { op: number; d: any }): void {
    switch (payload.op) {
      case 1:
        return this.send(ws, { op: 11, d: null, s: null, t: null });
      case 2:
        return this.identify(ws, payload.d);
      case 6:
        return this.resume(ws, payload.d);
      default:
        // Presence updates (3), guild member requests (8) etc. need no answer here.
        return;
    }
  }

  private identify(ws: WebSocket, d: any): void {
    if (d?.token !== this.world.opts.token && d?.token !== `Bot ${this.world.opts.token}`) return ws.close(4004, "Authentication failed.");
    const shard: [number, number] = Array.isArray(d.shard) ? d.shard : [0, 1];
    // A new IDENTIFY for a shard replaces that shard's previous session.
    this.sessions = this.sessions.filter((s) => s.shard[0] !== shard[0] || s.shard[1] !== shard[1]);
    const session: Session = { id: randomBytes(16).toString("hex"), shard, seq: 0, sent: [], ws };
    this.sessions.push(session);
    const guilds = [...this.world.guilds.values()].filter((g) => this.shardOf(g.id, shard[1]) === shard[0]);
    this.sendDispatch(session, "READY", {
      v: 10,
      user: this.world.opts.botUser,
      guilds: guilds.map((g) => ({ id: g.id, unavailable: true })),
      session_id: session.id,
      resume_gateway_url: this.resumeUrl,
      shard,
      application: { id: this.world.opts.applicationId, flags: 0 },
    });
    for (const g of guilds) this.sendDispatch(session, "GUILD_CREATE", guildPayload(g, this.world.channelsOf(g.id), this.world.opts.botUser));
  }

  private resume(ws: WebSocket, d: any): void {
    const session = this.sessions.find((s) => s.id === d?.session_id);
    if (!session || d?.token?.replace(/^Bot /, "") !== this.world.opts.token) {
      // d: false tells the client the session cannot be resumed: it must IDENTIFY again.
      return this.send(ws, { op: 9, d: false, s: null, t: null });
    }
    session.ws = ws;
    for (const ev of session.sent) if (ev.s > Number(d.seq ?? 0)) this.send(ws, { op: 0, ...ev });
    this.sendDispatch(session, "RESUMED", {});
  }

  /** Guild sharding as Discord does it: (guild_id >> 22) % shard_count. */
  private shardOf(guildId: string | undefined, count: number): number {
    if (!guildId) return 0;
    return Number((BigInt(guildId) >> 22n) % BigInt(count));
  }

  /** Sends an event to the session of the shard that owns its guild; buffered while disconnected. */
  dispatch(t: string, d: Record<string, unknown>): void {
    const guildId = (d.guild_id as string | undefined) ?? (t.startsWith("GUILD_") ? (d.id as string) : undefined);
    for (const session of this.sessions) {
      if (this.shardOf(guildId, session.shard[1]) === session.shard[0]) this.sendDispatch(session, t, d);
    }
  }

  private sendDispatch(session: Session, t: string, d: unknown): void {
    const ev = { s: ++session.seq, t, d };
    session.sent.push(ev);
    if (session.ws) this.send(session.ws, { op: 0, ...ev });
  }

  private send(ws: WebSocket, payload: unknown): void {
    if (ws.readyState === WebSocket.OPEN) ws.send(JSON.stringify(payload));
  }

  /** Closes every client connection: with a code (4000 = unknown error, resumable) or abruptly. */
  drop(code: number | "terminate" = 4000): void {
    for (const ws of this.wss.clients) {
      if (code === "terminate") ws.terminate();
      else ws.close(code, "dropped by the fake");
    }
  }

  /** Forgets every session, as Discord does after an outage: the next RESUME gets INVALID_SESSION. */
  invalidateSessions(): void {
    this.sessions = [];
  }

  /** Resolves on the next client opcode `op` (1 heartbeat, 2 identify, 6 resume). */
  waitForOp(op: number, timeoutMs = 20_000): Promise<unknown> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`fake gateway: no op ${op} within ${timeoutMs} ms`)), timeoutMs);
      this.events.once(`op${op}`, (d) => {
        clearTimeout(timer);
        resolve(d);
      });
    });
  }

  /** Counts clients that are connected now. */
  get openConnections(): number {
    return [...this.wss.clients].filter((ws) => ws.readyState === WebSocket.OPEN).length;
  }

  async close(): Promise<void> {
    for (const ws of this.wss.clients) ws.terminate();
    await new Promise<void>((resolve) => this.wss.close(() => resolve()));
  }
}
