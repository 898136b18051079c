import type { ChannelPace } from "@duet/shared";
import type { Logger, types, webApi } from "@slack/bolt";
import { currentWorkspace, inWorkspace } from "./oauth/workspace-client.ts";

/**
 * Every Web API call the bot makes goes through here: a 429 is waited out for
 * exactly its `Retry-After` (the client is built with `rejectRateLimitedCalls`,
 * so this works whatever retry policy the client has), and a failure becomes a
 * logged `null` instead of an exception, because a lost reaction must never
 * stop a reply. A call that posts a new message in a channel waits its turn in
 * the channel's pace (`newMessage`): Slack takes about one a second per channel.
 */

type WebClient = webApi.WebClient;
export type Block = types.KnownBlock | types.Block;

/** Attempts per call when Slack keeps answering 429 (the first try plus three waits). */
export const RATE_LIMIT_ATTEMPTS = 4;
/** Longest Retry-After honoured; Slack's are seconds, a bigger one means something is wrong. */
export const RATE_LIMIT_MAX_WAIT_MS = 120_000;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export function slackErrorCode(err: unknown): string {
  const e = err as { data?: { error?: string }; code?: string; message?: string };
  return e?.data?.error ?? e?.code ?? e?.message ?? String(err);
}

export async function withRetryAfter<T>(call: () => Promise<T>, logger: Logger, what: string): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await call();
    } catch (err) {
      const e = err as { code?: string; retryAfter?: number };
      if (e?.code !== "slack_webapi_rate_limited_error" || attempt >= RATE_LIMIT_ATTEMPTS) throw err;
      const waitMs = Math.min((e.retryAfter ?? 1) * 1000, RATE_LIMIT_MAX_WAIT_MS);
      logger.info(`Slack rate-limited ${what}; retrying in ${waitMs} ms as Retry-After asks`);
      await sleep(waitMs);
    }
  }
}

/** chat.update's refusal of a message that is still a stream. */
const STILL_STREAMING = "streaming_state_conflict";

export interface Upload {
  filename: string;
  title: string;
  content: string;
}

/** Runs a call that posts a new message in `channel` in that channel's turn. */
export type NewMessage = <R>(channel: string, create: () => Promise<R>) => Promise<R>;

export class SlackOut {
  constructor(
    private readonly client: WebClient,
    private readonly logger: Logger,
    /** The bot's one pace for new messages, per workspace and channel. */
    private readonly pace: ChannelPace,
  ) {}

  /**
   * Runs `create`, a call that posts a new message in `channel` (a thread's
   * replies count toward their channel), in the channel's turn. It runs in the
   * workspace it was asked in (under OAuth, with that workspace's token), whichever
   * call's end lets it go.
   */
  newMessage<R>(channel: string, create: () => Promise<R>): Promise<R> {
    const workspace = currentWorkspace();
    return this.pace.run(`${workspace?.teamId ?? ""}/${channel}`, workspace ? () => inWorkspace(workspace, create) : create);
  }

  /**
   * Runs `create`, a call that posts a new message completing the one just
   * posted in `channel` (an answer's files after it), at once; the channel's
   * next new message waits its turn after it (ChannelPace.follow).
   */
  followMessage<R>(channel: string, create: () => Promise<R>): Promise<R> {
    const workspace = currentWorkspace();
    return this.pace.follow(`${workspace?.teamId ?? ""}/${channel}`, create);
  }

  /** Posts a message (in a thread when `threadTs` is set) in the channel's turn; returns its ts, or null when Slack refused. */
  async post(channel: string, text: string, blocks?: Block[], threadTs?: string): Promise<string | null> {
    const res = await this.newMessage(channel, () =>
      this.call("chat.postMessage", () => this.client.chat.postMessage({ channel, text, blocks, thread_ts: threadTs, unfurl_links: false, unfurl_media: false })),
    );
    return res?.ts ?? null;
  }

  /** Replaces a posted message's text and blocks; false when Slack refused. */
  async update(channel: string, ts: string, text: string, blocks?: Block[]): Promise<boolean> {
    return (await this.call("chat.update", () => this.client.chat.update({ channel, ts, text, blocks }))) !== null;
  }

  /**
   * Edits a message an earlier delivery posted into `text` and `blocks`. Only a
   * message still streaming (its bot died mid-stream: chat.update refuses it) is
   * sent chat.stopStream, then edited: a plain message is never sent a
   * streaming method. False when Slack refused.
   */
  async replace(channel: string, ts: string, text: string, blocks?: Block[]): Promise<boolean> {
    try {
      await withRetryAfter(() => this.client.chat.update({ channel, ts, text, blocks }), this.logger, "chat.update");
      return true;
    } catch (err) {
      if (slackErrorCode(err) !== STILL_STREAMING) {
        this.logger.warn(`Slack refused chat.update: ${slackErrorCode(err)}`);
        return false;
      }
    }
    await this.endStream(channel, ts);
    return this.update(channel, ts, text, blocks);
  }

  /**
   * Ends a stream a bot that died left open (chat.update refuses a message still
   * streaming); false when there was none to end (a plain message, a stream Slack already ended).
   */
  async endStream(channel: string, ts: string): Promise<boolean> {
    try {
      await withRetryAfter(() => this.client.chat.stopStream({ channel, ts }), this.logger, "chat.stopStream");
      return true;
    } catch (err) {
      this.logger.debug(`chat.stopStream on ${ts}: ${slackErrorCode(err)}`);
      return false;
    }
  }

  /** Shows a message to one person only (in a thread when `threadTs` is set); false when Slack refused. */
  async postEphemeral(channel: string, user: string, text: string, blocks?: Block[], threadTs?: string): Promise<boolean> {
    return (await this.call("chat.postEphemeral", () => this.client.chat.postEphemeral({ channel, user, text, blocks, thread_ts: threadTs }))) !== null;
  }

  /** A person's display name (their profile's display name, else real name), or null when Slack would not say. */
  async displayName(user: string): Promise<string | null> {
    const res = await this.call("users.info", () => this.client.users.info({ user }));
    const u = res?.user;
    return u?.profile?.display_name || u?.real_name || u?.name || null;
  }

  /** Adds a reaction. "taken" means this bot had already added it (Slack's `already_reacted`). */
  async react(channel: string, ts: string, name: string): Promise<"added" | "taken" | "failed"> {
    try {
      await withRetryAfter(() => this.client.reactions.add({ channel, timestamp: ts, name }), this.logger, "reactions.add");
      return "added";
    } catch (err) {
      if (slackErrorCode(err) === "already_reacted") return "taken";
      this.logger.warn(`reactions.add ${name} failed: ${slackErrorCode(err)}`);
      return "failed";
    }
  }

  /**
   * Sets (or, with "", clears) the app's status under a thread. Cosmetic, so a 429 is
   * not waited out. Returns null when set, else Slack's error code.
   */
  async setStatus(channel: string, threadTs: string, status: string): Promise<string | null> {
    try {
      await this.client.assistant.threads.setStatus({ channel_id: channel, thread_ts: threadTs, status });
      return null;
    } catch (err) {
      return slackErrorCode(err);
    }
  }

  /** Uploads a text file into the channel (and thread), as `files.uploadV2` does: a new message, in the channel's turn. */
  async upload(channel: string, file: Upload, threadTs?: string): Promise<boolean> {
    const base = { filename: file.filename, title: file.title, content: file.content, snippet_type: "text" };
    const args: webApi.FilesUploadV2Arguments = threadTs
      ? { ...base, channel_id: channel, thread_ts: threadTs }
      : { ...base, channel_id: channel };
    const res = await this.newMessage(channel, () => this.call("files.uploadV2", () => this.client.filesUploadV2(args)));
    return res !== null;
  }

  private async call<T>(what: string, fn: () => Promise<T>): Promise<T | null> {
    try {
      return await withRetryAfter(fn, this.logger, what);
    } catch (err) {
      this.logger.warn(`${what} failed: ${slackErrorCode(err)}`);
      return null;
    }
  }
}
