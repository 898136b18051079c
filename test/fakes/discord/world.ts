import { EventEmitter } from "node:events";
import type { DiscordUser, FakeChannel, FakeGuild, FakeMessage } from "./payloads.ts";
import { shownButtons, shownText } from "./components-v2.ts";

/** What the fake Discord knows: guilds, channels, messages, interactions, and every REST call made. */

export interface UploadedFile {
  field: string;
  filename: string;
  contentType: string;
  text: string;
  size: number;
}

export interface RestCall {
  method: string;
  /** Decoded path below /api/v10, e.g. /webhooks/1/tok/messages/@original */
  path: string;
  /** Route with ids replaced, e.g. "PATCH /webhooks/:app/:token/messages/:message" */
  route: string;
  query: Record<string, string>;
  /** JSON body, or `payload_json` of a multipart body. */
  body: any;
  files: UploadedFile[];
  status: number;
  /** Discord's JSON error code when the call failed. */
  errorCode?: number;
  at: number;
}

export interface InteractionRecord {
  id: string;
  token: string;
  guildId?: string;
  channelId?: string;
  createdAt: number;
  acknowledged: boolean;
  ephemeral: boolean;
  /** The deferred reply, once edited; null while "thinking". */
  original: FakeMessage | null;
  followups: FakeMessage[];
  /** For a button click (type 3): the message the button is on. */
  messageId?: string;
  /** The interaction's type: 2 a command (slash or message), 3 a click, 5 a modal submitted. */
  type?: number;
  /** The modal the bot answered with (callback type 9), as it sent it. */
  modal?: any;
}

/** One accepted edit of a bot message, with what it showed afterwards and when it arrived. */
export interface MessageEdit {
  messageId: string;
  /** The text it shows: its content, or a V2 message's text displays. */
  content: string;
  /** Custom ids of the buttons the message shows after the edit. */
  buttons: string[];
  at: number;
}

export interface RateLimitPlan {
  remaining: number;
  retryAfterSeconds: number;
  global: boolean;
  match: (call: { method: string; route: string; path: string }) => boolean;
}

/** The next `remaining` REST calls `match` accepts fail with this Discord error (a refusal, not a rate limit: nothing retries it). */
export interface FailurePlan {
  remaining: number;
  status: number;
  code: number;
  message: string;
  match: (call: { method: string; route: string; path: string }) => boolean;
}

export interface WorldOptions {
  token: string;
  applicationId: string;
  botUser: DiscordUser;
  /** Discord's deadline for the first interaction response. */
  interactionDeadlineMs: number;
  /** How long an interaction token stays valid for edits and follow-ups. */
  interactionTokenTtlMs: number;
  /** The clock for those two deadlines; tests may pass their own to move time. */
  now: () => number;
}

export class World {
  readonly events = new EventEmitter();
  readonly guilds = new Map<string, FakeGuild>();
  readonly channels = new Map<string, FakeChannel>();
  readonly messages = new Map<string, FakeMessage>();
  readonly interactions = new Map<string, InteractionRecord>();
  readonly calls: RestCall[] = [];
  readonly commands = { global: [] as unknown[], guild: new Map<string, unknown[]>() };
  readonly typing: string[] = [];
  readonly edits: MessageEdit[] = [];
  /** The bot's own reactions, by message id: what people see on a message now. */
  readonly reactions = new Map<string, string[]>();
  /** Messages posted with `enforce_nonce`, by author and nonce: a repeat within the window gets the same message. */
  readonly nonces = new Map<string, { message: FakeMessage; at: number }>();
  rateLimit: RateLimitPlan | null = null;
  failure: FailurePlan | null = null;
  /** REST calls held until released, by a substring of their route ("METHOD /path/:param"). */
  holds: Array<{ route: string; gate: Promise<void>; arrive: () => void }> = [];
  /** While set, starting a thread on a message fails with this Discord error (a missing permission). */
  threadRefusal: { status: number; code: number; message: string } | null = null;

  constructor(readonly opts: WorldOptions) {
    this.events.setMaxListeners(100);
  }

  channelsOf(guildId: string): FakeChannel[] {
    return [...this.channels.values()].filter((c) => c.guild_id === guildId);
  }

  interactionByToken(token: string): InteractionRecord | undefined {
    for (const rec of this.interactions.values()) if (rec.token === token) return rec;
    return undefined;
  }

  messagesIn(channelId: string): FakeMessage[] {
    return [...this.messages.values()].filter((m) => m.channel_id === channelId);
  }

  recordEdit(msg: FakeMessage, at: number): void {
    this.edits.push({ messageId: msg.id, content: shownText(msg), buttons: shownButtons(msg), at });
    this.events.emit("edit", msg);
  }

  record(call: RestCall): void {
    this.calls.push(call);
    this.events.emit("call", call);
  }

  /** Resolves with the first recorded call (past or future) that matches. */
  waitForCall(pred: (c: RestCall) => boolean, timeoutMs = 20_000, label = "call"): Promise<RestCall> {
    const found = this.calls.find(pred);
    if (found) return Promise.resolve(found);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.events.off("call", onCall);
        const seen = this.calls.map((c) => `${c.route} ${c.status}`).join("\n  ");
        reject(new Error(`fake Discord: no ${label} within ${timeoutMs} ms; calls so far:\n  ${seen}`));
      }, timeoutMs);
      const onCall = (c: RestCall) => {
        if (!pred(c)) return;
        clearTimeout(timer);
        this.events.off("call", onCall);
        resolve(c);
      };
      this.events.on("call", onCall);
    });
  }
}

