import { LatestThrottle, type LiveAnswer, realTimers, type Timers } from "@duet/shared";
import type { Logger, webApi } from "@slack/bolt";
import type { Rendered } from "../rendered.ts";
import { type Block, slackErrorCode, type SlackOut } from "../slack-api.ts";
import { LIVE_FALLBACK, liveBlocks, stopButton, streamedText, type TaskChunk, taskChunks } from "./live-blocks.ts";

/**
 * One answer growing in a Slack thread. With streaming it is a streamed message
 * (chat.startStream / appendStream / stopStream through bolt's chatStream) with
 * the text as Markdown and each command as a task; where the workspace refuses
 * streaming, or once a stream nears Slack's lifetime for one, it is a message
 * updated with chat.update. Either way the answer ends as the message a
 * non-streamed answer gets (its blocks, then its files), put in place by one
 * chat.update.
 *
 * Every Slack call goes through one throttle: live states at most one a second,
 * each carrying the latest; a 429 is waited out and the latest state sent after
 * it, so nothing is lost. The final message does not wait out the second: Slack
 * limits chat.update per method and workspace, not per message, so the complete
 * answer goes as soon as the call before it has ended.
 *
 * The answer's first message is a new message in the channel, so it waits its
 * turn in the channel's pace (SlackOut.newMessage); meanwhile the answer keeps
 * growing, and the turn shows its newest state: the final answer, whole, in one
 * message, when it ended while waiting.
 */

/** At most one live update a second: within chat.update's budget for a workspace, and often enough to read as live. */
export const LIVE_INTERVAL_MS = 1_000;
/**
 * The answer's second call follows its first as soon as that one ended: the
 * first starts the message (chat.startStream or chat.postMessage, paced per
 * channel), the next is the first change to it (appendStream or chat.update),
 * a method Slack counts on its own, so the words after the first show at once
 * instead of a second later. Later changes keep to LIVE_INTERVAL_MS.
 */
export const LIVE_AFTER_FIRST_MS = 0;
/** Slack ends a stream about 5 minutes after it starts; this ends it first and goes on with chat.update. */
export const STREAM_LIFETIME_MS = 4 * 60_000 + 30_000;

export interface LivePlace {
  channel: string;
  threadTs?: string;
  /** Who asked, and their workspace: a stream in a channel is shown to them as it grows. */
  recipientUserId: string;
  recipientTeamId: string;
  /** The room the Stop button stops. */
  room: string;
  /** Blocks shown above the growing answer (a slash answer's "who asked" line). */
  heading?: Block[];
  /** Hears the ts of the answer's message as soon as it is first posted. */
  onPosted?: (ts: string) => void;
  /** Hears that the answer's first message is about to be sent (the thread status cares what lands after it). */
  onPosting?: () => void;
}

export interface LiveOptions {
  streaming: boolean;
  timers?: Timers;
  intervalMs?: number;
  streamLifetimeMs?: number;
}

/** Builds the live message for one answer (the bot's client, logger and streaming settings are bound in). */
export type LiveMessages = (place: LivePlace) => SlackLiveMessage;

type Streamer = ReturnType<webApi.WebClient["chatStream"]>;
type State = { kind: "live"; answer: LiveAnswer } | { kind: "final"; rendered: Rendered };

/** Errors after which a stream takes nothing more: go on with chat.update on the same message. */
const STREAM_OVER = new Set(["message_not_in_streaming_state", "message_not_owned_by_app", "stopped_by_user"]);

class RateLimited extends Error {
  constructor(readonly retryAfterMs: number) {
    super("rate limited");
  }
}

export class SlackLiveMessage {
  /** "refused": Slack refused the first post (Duet is not in the channel, say); nothing more is tried. */
  private mode: "none" | "stream" | "update" | "refused" = "none";
  private ts: string | null = null;
  private streamer: Streamer | null = null;
  private streamStartedAt = 0;
  /** What the stream shows: its text, and each task's last status. */
  private streamed = "";
  private tasks = new Map<string, string>();
  /** The newest live state pushed, shown or not: a stream ends on it, so its last task statuses are never dropped. */
  private latest: LiveAnswer | null = null;
  private readonly throttle: LatestThrottle<State>;
  private readonly timers: Timers;

  constructor(
    private readonly client: webApi.WebClient,
    private readonly out: SlackOut,
    private readonly logger: Logger,
    private readonly place: LivePlace,
    private readonly opts: LiveOptions,
  ) {
    this.timers = opts.timers ?? realTimers;
    this.throttle = new LatestThrottle<State>((s, newest) => this.show(s, newest), {
      intervalMs: opts.intervalMs ?? LIVE_INTERVAL_MS,
      afterFirstMs: LIVE_AFTER_FIRST_MS,
      timers: this.timers,
      retryAfterMs: (err) => (err instanceof RateLimited ? err.retryAfterMs : undefined),
      onError: (err) => this.logger.warn(`A live answer in ${place.channel} could not be shown: ${slackErrorCode(err)}`),
    });
  }

  /** The answer so far; shown now or within the interval. */
  update(answer: LiveAnswer): void {
    this.latest = answer;
    this.throttle.push({ kind: "live", answer });
  }

  /** Puts the final message in place and shares its files; resolves with its ts, or null when Slack refused it. */
  async finish(rendered: Rendered): Promise<string | null> {
    const shown = await this.throttle.finish({ kind: "final", rendered });
    if (!shown || !this.ts) return null;
    for (const upload of rendered.uploads) await this.out.upload(this.place.channel, upload, this.place.threadTs);
    return this.ts;
  }

  private async show(given: State, newest: () => State): Promise<void> {
    // finish() then resolves null, and the surface says the answer its own way.
    if (this.mode === "refused") return;
    // Nothing posted yet: the first message waits its turn in the channel, then shows what is newest by then.
    if (this.mode === "none") {
      return this.out.newMessage(this.place.channel, () => {
        this.place.onPosting?.();
        return this.showNow(newest());
      });
    }
    return this.showNow(given);
  }

  private async showNow(state: State): Promise<void> {
    if (this.mode === "stream" && this.timers.now() - this.streamStartedAt > (this.opts.streamLifetimeMs ?? STREAM_LIFETIME_MS)) {
      await this.endStream();
    }
    if (state.kind === "final") return this.showFinal(state.rendered);
    // A stream is a reply: a top-level DM answer is updated in place instead.
    if (this.mode === "none") return this.opts.streaming && this.place.threadTs ? this.startStream(state.answer, this.place.threadTs) : this.post(state.answer);
    if (this.mode === "stream") return this.append(state.answer);
    return this.updateTo(LIVE_FALLBACK, this.blocksOf(state.answer));
  }

  private async showFinal(rendered: Rendered): Promise<void> {
    if (this.mode === "stream") await this.endStream(this.latest);
    if (this.mode === "none") {
      // An answer done before its first update is posted whole here; the room still hears of the ts first.
      this.setTs(await this.call(() => this.client.chat.postMessage({ channel: this.place.channel, thread_ts: this.place.threadTs, text: rendered.text, blocks: rendered.blocks, unfurl_links: false, unfurl_media: false })));
      return;
    }
    await this.updateTo(rendered.text, rendered.blocks);
  }

  private async startStream(answer: LiveAnswer, threadTs: string): Promise<void> {
    const streamer = this.client.chatStream({
      channel: this.place.channel,
      thread_ts: threadTs,
      recipient_user_id: this.place.recipientUserId,
      recipient_team_id: this.place.recipientTeamId,
      // Every call is already paced by the throttle: nothing is held back in the helper.
      buffer_size: 1,
    });
    const { text, tasks } = this.changes(answer);
    try {
      await streamer.append({ chunks: [{ type: "blocks", blocks: [stopButton(this.place.room)] }, ...markdown(text), ...tasks] });
    } catch (err) {
      if (isRateLimited(err)) throw rateLimited(err);
      this.logger.info(`Slack refused a streamed answer in ${this.place.channel} (${slackErrorCode(err)}); updating a message instead`);
      return this.post(answer);
    }
    this.streamer = streamer;
    this.setTs(streamer.ts ?? null);
    this.mode = "stream";
    this.streamStartedAt = this.timers.now();
    this.commit(text, tasks);
  }

  private async append(answer: LiveAnswer): Promise<void> {
    const { text, tasks } = this.changes(answer);
    if (!text && tasks.length === 0) return;
    try {
      await this.streamer!.append({ chunks: [...markdown(text), ...tasks] });
    } catch (err) {
      if (isRateLimited(err)) throw rateLimited(err);
      if (!STREAM_OVER.has(slackErrorCode(err))) throw err;
      // Slack ended the stream: the same message goes on through chat.update.
      this.streamer = null;
      this.mode = "update";
      return this.updateTo(LIVE_FALLBACK, this.blocksOf(answer));
    }
    this.commit(text, tasks);
  }

  /**
   * Stops the stream (what it shows stays until the next chat.update), carrying
   * what `last` adds to it; a stream Slack already ended is fine.
   */
  private async endStream(last: LiveAnswer | null = null): Promise<void> {
    const { text, tasks } = last ? this.changes(last) : { text: "", tasks: [] };
    const chunks = [...markdown(text), ...tasks];
    try {
      await this.streamer?.stop(chunks.length ? { chunks } : undefined);
    } catch (err) {
      if (isRateLimited(err)) throw rateLimited(err);
      if (!STREAM_OVER.has(slackErrorCode(err)) && !/stream state is completed/.test(String(err))) throw err;
    }
    this.streamer = null;
    this.mode = "update";
  }

  /** The first message of an answer updated in place; a refusal other than a 429 ends the live answer. */
  private async post(answer: LiveAnswer): Promise<void> {
    const blocks = this.blocksOf(answer);
    try {
      this.setTs(await this.call(() => this.client.chat.postMessage({ channel: this.place.channel, thread_ts: this.place.threadTs, text: LIVE_FALLBACK, blocks, unfurl_links: false, unfurl_media: false })));
    } catch (err) {
      // Trying again each second would only repeat the refusal until the answer ends.
      if (!(err instanceof RateLimited)) this.mode = "refused";
      throw err;
    }
    if (this.ts) this.mode = "update";
  }

  /** The live answer's message is posted: its ts is told at once, so a bot that dies from here on leaves it to be edited. */
  private setTs(ts: string | null): void {
    this.ts = ts;
    if (ts) this.place.onPosted?.(ts);
  }

  private blocksOf(answer: LiveAnswer): Block[] {
    return liveBlocks(answer, this.place.room, this.place.heading);
  }

  private async updateTo(text: string, blocks: Rendered["blocks"]): Promise<void> {
    const ts = this.ts;
    if (!ts) return;
    await this.call(() => this.client.chat.update({ channel: this.place.channel, ts, text, blocks }));
  }

  /** One Web API call: a 429 goes back to the throttle to wait out; any other refusal throws. */
  private async call(fn: () => Promise<{ ts?: string }>): Promise<string | null> {
    try {
      return (await fn()).ts ?? null;
    } catch (err) {
      if (isRateLimited(err)) throw rateLimited(err);
      throw err;
    }
  }

  /** The text not yet streamed and the tasks whose status changed. Text the redaction rewrote is left for the final message. */
  private changes(answer: LiveAnswer): { text: string; tasks: TaskChunk[] } {
    const full = streamedText(answer);
    const text = full.startsWith(this.streamed) ? full.slice(this.streamed.length) : "";
    const tasks = taskChunks(answer).filter((t) => this.tasks.get(t.id) !== `${t.status}`);
    return { text, tasks };
  }

  private commit(text: string, tasks: TaskChunk[]): void {
    this.streamed += text;
    for (const t of tasks) this.tasks.set(t.id, t.status);
  }
}

const markdown = (text: string) => (text ? [{ type: "markdown_text" as const, text }] : []);

function isRateLimited(err: unknown): boolean {
  return (err as { code?: string })?.code === "slack_webapi_rate_limited_error";
}

function rateLimited(err: unknown): RateLimited {
  return new RateLimited(((err as { retryAfter?: number }).retryAfter ?? 1) * 1000);
}
