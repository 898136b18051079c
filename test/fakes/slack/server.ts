import { EventEmitter } from "node:events";
import type { IncomingMessage, ServerResponse } from "node:http";
import { parse as parseQuery } from "node:querystring";
import { listen, sendJson, type Listening } from "../http.ts";
import { FakeOAuth } from "./oauth.ts";
import { FakeSocketMode } from "./socket-mode.ts";
import { Workspace } from "./state.ts";
import { SharedFiles } from "./shared-files.ts";
import { isStreaming, STREAM_METHODS, type StreamSettings } from "./streaming.ts";
import { VIEW_METHODS } from "./views.ts";
import { botAuth, type Content, type Identity, METHODS, type MethodContext, messageContent } from "./web-api.ts";

/**
 * A fake Slack on 127.0.0.1: the Web API under `/api/<method>`, file upload URLs,
 * response_url endpoints and Socket Mode. Every call is recorded; tests read the
 * workspace (what people would see) and wait for changes with `waitFor`.
 */

export interface ApiCall {
  method: string;
  args: Record<string, unknown>;
  token?: string;
  at: number;
  /** HTTP status the fake answered (429 when rate limited). */
  status: number;
  /** Slack's `ok` / `error` for 200 answers. */
  ok?: boolean;
  error?: string;
}

export interface ResponseUrlPost {
  id: string;
  body: Record<string, unknown>;
  at: number;
}

export interface FakeSlack extends Listening {
  id: Identity;
  /** What the bot sets as SLACK_API_URL. */
  apiUrl: string;
  ws: Workspace;
  calls: ApiCall[];
  responses: ResponseUrlPost[];
  socket: FakeSocketMode;
  /** The next `times` calls of `method` answer 429 with `Retry-After: retryAfterSec`. */
  rateLimit(method: string, times: number, retryAfterSec: number): void;
  /** Every later call of `method` answers `{ok: false, error}` (a method this workspace does not offer, a policy); null undoes it. */
  refuse(method: string, error: string | null): void;
  /**
   * Streamed messages: `lifetimeMs` stands in for Slack's ~5 minutes (change it
   * for a test), `refused` makes every chat.*Stream call answer that error, as a
   * workspace without streaming does.
   */
  streams: StreamSettings;
  /** A fresh response_url for a slash command, tied to the channel and user it was issued for. */
  responseUrl(channel: string, user: string): string;
  /** Re-evaluates `probe` after every change until it returns a value other than undefined/false. */
  waitFor<T>(probe: () => T | undefined | false | null, what: string, timeoutMs?: number): Promise<T>;
  callsOf(method: string): ApiCall[];
  /** OAuth distribution: the app's client id and secret, the authorize page, the tokens it grants. */
  oauth: FakeOAuth;
  /**
   * Holds every call of `method` that arrives until `release()`: `arrived`
   * settles when the first one is being held (a barrier for tests of races).
   */
  hold(method: string): { arrived: Promise<void>; release(): void };
  /** Files people share (served at their `url_private_download`), and what reached the host a file redirects to. */
  sharedFiles: SharedFiles;
}

const DEFAULT_IDENTITY: Identity = {
  teamId: "T0DUET",
  teamName: "duet-test",
  botUserId: "U0DUETBOT",
  botId: "B0DUETBOT",
  appId: "A0DUETAPP",
  botToken: "xoxb-fake-bot-token",
  appToken: "xapp-1-fake-app-token",
};

/** Slack ends a stream about 5 minutes after chat.startStream. */
const STREAM_LIFETIME_MS = 5 * 60_000;

/** A response_url accepts at most 5 posts within 30 minutes (Slack's rule). */
const RESPONSE_URL_MAX_USES = 5;

export async function startFakeSlack(identity: Partial<Identity> = {}): Promise<FakeSlack> {
  const id = { ...DEFAULT_IDENTITY, ...identity };
  const ws = new Workspace(id.teamId);
  const calls: ApiCall[] = [];
  const responses: ResponseUrlPost[] = [];
  const limits = new Map<string, { times: number; retryAfterSec: number }>();
  const refused = new Map<string, string>();
  const responseUrls = new Map<string, { channel: string; user: string; uses: number }>();
  const changes = new EventEmitter();
  changes.setMaxListeners(0);
  const changed = () => changes.emit("change");
  const socket = new FakeSocketMode(id.appId, changed);
  const oauth = new FakeOAuth();
  const holds = new Map<string, { gate: Promise<void>; arrive: () => void }>();
  const streams: StreamSettings = { lifetimeMs: STREAM_LIFETIME_MS, refused: null, now: Date.now };
  let base = "";
  let responseSeq = 0;
  const sharedFiles = new SharedFiles(id.teamId, () => base, (token) => token === id.botToken || Boolean(token && oauth.grantOf(token)));

  const listening = await listen(async (req, res) => {
    const url = new URL(req.url ?? "/", "http://x");
    if (sharedFiles.handle(req, res, url)) return changed();
    const body = await readRaw(req);
    const api = /^\/api\/([\w.]+)$/.exec(url.pathname);
    if (req.method === "POST" && api) return handleApi(api[1], req, res, body);
    const upload = /^\/upload\/(\w+)$/.exec(url.pathname);
    if (req.method === "POST" && upload) return handleUpload(upload[1], req, res, body);
    const resp = /^\/response\/(\w+)$/.exec(url.pathname);
    if (req.method === "POST" && resp) return handleResponseUrl(resp[1], res, body);
    if (req.method === "GET" && url.pathname === "/oauth/v2/authorize") return oauth.authorize(url, res);
    sendJson(res, 404, { ok: false, error: "not_found" });
  });
  base = listening.url;
  socket.attach(listening.server);

  async function handleApi(method: string, req: IncomingMessage, res: ServerResponse, raw: Buffer): Promise<void> {
    const held = holds.get(method);
    if (held) {
      held.arrive();
      await held.gate;
    }
    const args = parseArgs(req, raw);
    const auth = req.headers.authorization;
    const token = auth?.startsWith("Bearer ") ? auth.slice(7) : typeof args.token === "string" ? args.token : undefined;
    const call: ApiCall = { method, args, token, at: Date.now(), status: 200 };
    calls.push(call);
    const limit = limits.get(method);
    if (limit && limit.times > 0) {
      limit.times -= 1;
      call.status = 429;
      changed();
      return sendJson(res, 429, { ok: false, error: "ratelimited" }, { "retry-after": String(limit.retryAfterSec) });
    }
    const basic = auth?.startsWith("Basic ") ? auth.slice(6) : undefined;
    const result =
      method === "oauth.v2.access" ? oauth.access(args, basic) : answer(method, { args, token, ws, id, baseUrl: base, socketUrl: () => socket.newUrl(base), oauth });
    call.ok = result.ok === true;
    call.error = typeof result.error === "string" ? result.error : undefined;
    sendJson(res, 200, result);
    changed();
  }

  function answer(method: string, ctx: MethodContext): Record<string, unknown> {
    const refusal = refused.get(method) ?? (method in STREAM_METHODS ? streams.refused : null);
    if (refusal) return { ok: false, error: refusal };
    const streamMethod = STREAM_METHODS[method];
    if (streamMethod) return botAuth(ctx) ?? streamMethod(ctx, streams);
    if (method === "chat.update") {
      const target = ws.find(String(ctx.args.channel ?? ""), String(ctx.args.ts ?? ""));
      if (target && isStreaming(target, streams)) return { ok: false, error: "streaming_state_conflict" };
    }
    const impl = METHODS[method] ?? VIEW_METHODS[method];
    return impl ? impl(ctx) : { ok: false, error: "unknown_method" };
  }

  async function handleUpload(fileId: string, req: IncomingMessage, res: ServerResponse, raw: Buffer): Promise<void> {
    const file = ws.files.get(fileId);
    if (!file) return sendJson(res, 404, { ok: false, error: "file_not_found" });
    const type = req.headers["content-type"] ?? "";
    if (type.startsWith("multipart/form-data")) {
      // The SDK posts the bytes as a multipart field named `body`.
      const form = await new Request("http://x", { method: "POST", headers: { "content-type": type }, body: new Uint8Array(raw) }).formData();
      const part = form.get("body") ?? form.get("file");
      file.content = part instanceof Blob ? Buffer.from(await part.arrayBuffer()) : Buffer.from(String(part ?? ""));
    } else {
      file.content = raw;
    }
    res.writeHead(200, { "content-type": "text/plain" });
    res.end(`OK - ${file.content.length}`);
    changed();
  }

  function handleResponseUrl(rid: string, res: ServerResponse, raw: Buffer): void {
    const target = responseUrls.get(rid);
    if (!target) return sendJson(res, 404, { ok: false, error: "expired_url" });
    if (target.uses >= RESPONSE_URL_MAX_USES) return sendJson(res, 404, { ok: false, error: "used_url" });
    let body: Record<string, unknown>;
    try {
      body = JSON.parse(raw.toString("utf8")) as Record<string, unknown>;
    } catch {
      return sendJson(res, 400, { ok: false, error: "invalid_payload" });
    }
    const content = messageContent(body);
    if (content.ok !== true) return sendJson(res, 400, content);
    target.uses += 1;
    responses.push({ id: rid, body, at: Date.now() });
    const { text, blocks } = content as Content;
    if (body.response_type === "in_channel") {
      ws.add({ channel: target.channel, bot_id: id.botId, user: id.botUserId, text, blocks, via: "response_url" });
    } else {
      ws.ephemeral.push({ channel: target.channel, user: target.user, text, blocks, via: "response_url" });
    }
    sendJson(res, 200, { ok: true });
    changed();
  }

  function waitFor<T>(probe: () => T | undefined | false | null, what: string, timeoutMs = 30_000): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      const check = (): boolean => {
        const value = probe();
        if (value === undefined || value === false || value === null) return false;
        cleanup();
        resolve(value as T);
        return true;
      };
      const timer = setTimeout(() => {
        cleanup();
        const recent = calls.slice(-8).map((c) => `${c.method} ${c.status} ${c.error ?? ""}`).join("; ");
        reject(new Error(`fake Slack: timed out waiting for ${what} (recent calls: ${recent || "none"})`));
      }, timeoutMs);
      const onChange = () => void check();
      const cleanup = () => {
        clearTimeout(timer);
        changes.off("change", onChange);
      };
      changes.on("change", onChange);
      check();
    });
  }

  return {
    ...listening,
    id,
    apiUrl: `${base}/api/`,
    ws,
    calls,
    responses,
    socket,
    rateLimit: (method, times, retryAfterSec) => limits.set(method, { times, retryAfterSec }),
    refuse: (method, error) => void (error === null ? refused.delete(method) : refused.set(method, error)),
    streams,
    responseUrl: (channel, user) => {
      responseSeq += 1;
      const rid = `R${responseSeq}x${Math.random().toString(36).slice(2, 8)}`;
      responseUrls.set(rid, { channel, user, uses: 0 });
      return `${base}/response/${rid}`;
    },
    waitFor,
    callsOf: (method) => calls.filter((c) => c.method === method),
    oauth,
    sharedFiles,
    hold: (method) => {
      let arrive = () => {};
      let release = () => {};
      const arrived = new Promise<void>((r) => (arrive = r));
      const gate = new Promise<void>((r) => (release = r));
      holds.set(method, { gate, arrive });
      return {
        arrived,
        release: () => {
          holds.delete(method);
          release();
        },
      };
    },
    close: async () => {
      await socket.close();
      await listening.close();
    },
  };
}

async function readRaw(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

function parseArgs(req: IncomingMessage, raw: Buffer): Record<string, unknown> {
  const type = req.headers["content-type"] ?? "";
  const text = raw.toString("utf8");
  if (type.includes("application/json")) {
    try {
      return JSON.parse(text) as Record<string, unknown>;
    } catch {
      return {};
    }
  }
  return { ...parseQuery(text) };
}
