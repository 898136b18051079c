import { ANSWER_NOTES, cleanModelText, LatestThrottle, type LiveAnswer, type LiveRunView, liveRunViews, pageChanges, pagesOf, realTimers, type Timers } from "@duet/shared";
import type { Logger } from "../deps.ts";
import { withoutPreviews } from "../links.ts";
import { MESSAGE_MAX_CHARS, type Outgoing } from "../render.ts";
import type { LivePayload, LiveTarget } from "./targets.ts";

/**
 * One answer growing on Discord: the deferred reply (or the reply to a
 * mention) is edited as the text arrives, at most every 1.5 s, with each
 * command's state and a Stop button. Past 2,000 characters the answer goes on
 * in more messages, split where a code block stays whole in each; the Stop
 * button moves to the newest. The end state is the non-streamed answer's
 * messages (with their files), the first ones edited into place as soon as
 * the edit before them has ended: the channel's bucket (5 edits per 5 s) has
 * room for one more, so the complete answer does not wait out the 1.5 s.
 *
 * discord.js's REST client waits out a 429 itself; since the throttle counts
 * the interval from the end of a call, the wait only makes the next edit later.
 *
 * A reply to a mention is a new message in the channel: it waits its turn in
 * the channel's pace (targets.ts), the answer growing meanwhile, and shows the
 * newest state when the turn comes (the final answer, when it ended while
 * waiting: posted as it ends, not posted and then edited).
 */

/** At most one round of edits every 1.5 s: Discord allows about 5 edits per 5 s per channel. */
export const LIVE_INTERVAL_MS = 1_500;
/**
 * The answer's second round of edits follows its first as soon as that one
 * ended: the channel's bucket (5 per 5 s) has room for two in a row, and the
 * words after the first show at once instead of 1.5 s later. Later rounds keep
 * to LIVE_INTERVAL_MS.
 */
export const LIVE_AFTER_FIRST_MS = 0;
export const STOP_PREFIX = "duet-stop:";
const WORKING = ANSWER_NOTES.working;

const ICON: Record<LiveRunView["state"], string> = { running: "⏳", ok: "✅", failed: "❌" };

export function stopRow(room: string): unknown {
  return { type: 1, components: [{ type: 2, style: 4, label: "Stop", custom_id: `${STOP_PREFIX}${room}` }] };
}

/** The live text: the answer so far, then a line per command. */
export function liveContent(answer: LiveAnswer): string {
  const runs = liveRunViews(answer).map((r) => `${ICON[r.state]} \`${r.command.replace(/`/g, "'")}\` · ${r.status}`);
  return [withoutPreviews(cleanModelText(answer.text)), runs.join("\n")].filter(Boolean).join("\n\n");
}

type State = { kind: "live"; answer: LiveAnswer } | { kind: "final"; messages: Outgoing[] };

export interface DiscordLiveOptions {
  room: string;
  timers?: Timers;
  intervalMs?: number;
  /** Hears the id of the answer's first message as soon as it is posted. */
  onPosted?: (id: string) => void;
}

export class DiscordLiveMessage {
  /** The messages shown so far, in order, and what each shows. */
  private shown: { id: string; content: string; button: boolean }[] = [];
  private readonly throttle: LatestThrottle<State>;

  constructor(
    private readonly target: LiveTarget,
    private readonly log: Logger,
    private readonly opts: DiscordLiveOptions,
  ) {
    this.throttle = new LatestThrottle<State>((s, newest) => this.show(s, newest), {
      intervalMs: opts.intervalMs ?? LIVE_INTERVAL_MS,
      afterFirstMs: LIVE_AFTER_FIRST_MS,
      timers: opts.timers ?? realTimers,
      onError: (err) => this.log.warn(`a live answer for ${opts.room} could not be shown: ${String(err)}`),
    });
  }

  update(answer: LiveAnswer): void {
    this.throttle.push({ kind: "live", answer });
  }

  /** Puts the final messages in place; resolves with the first one's id, or null when Discord refused them. */
  async finish(messages: Outgoing[]): Promise<string | null> {
    const shown = await this.throttle.finish({ kind: "final", messages });
    return shown ? (this.shown[0]?.id ?? null) : null;
  }

  private async show(given: State, newest: () => State): Promise<void> {
    const first = this.shown.length === 0;
    const state = first ? await this.showFirst(newest) : given;
    if (state.kind === "final") return this.showFinal(state.messages, first ? 1 : 0);
    const pages = livePages(state.answer);
    const { edits, posts } = pageChanges(
      this.shown.map((s) => s.content),
      pages,
    );
    const last = pages.length - 1;
    const button = [stopRow(this.opts.room)];
    for (const [i, s] of this.shown.entries()) {
      const content = edits.find((e) => e.index === i)?.content ?? s.content;
      const wantsButton = i === last;
      if (content === s.content && wantsButton === s.button) continue;
      await this.target.edit(s.id, { content, components: wantsButton ? button : [] });
      this.shown[i] = { ...s, content, button: wantsButton };
    }
    for (const content of posts) {
      const index = this.shown.length;
      const id = await this.target.more({ content, components: index === last ? button : [] });
      this.shown.push({ id, content, button: index === last });
    }
  }

  /**
   * Nothing shown yet: shows the first message of the newest state when the
   * channel's turn comes, and returns that state for the rest of its messages.
   */
  private async showFirst(newest: () => State): Promise<State> {
    let state = newest();
    let first = { content: "", button: false };
    const id = await this.target.first(() => {
      state = newest();
      const pages = state.kind === "live" ? livePages(state.answer) : [];
      const button = pages.length === 1;
      first = { content: state.kind === "final" ? state.messages[0].content : pages[0], button };
      return state.kind === "final" ? finalPayload(state.messages[0]) : { content: pages[0], components: button ? [stopRow(this.opts.room)] : [] };
    });
    this.shown.push({ id, ...first });
    this.opts.onPosted?.(id);
    return state;
  }

  /** Puts the final messages in place, from message `from` (the ones before it already show it). */
  private async showFinal(messages: Outgoing[], from = 0): Promise<void> {
    for (const [i, msg] of messages.entries()) {
      if (i < from) continue;
      const payload = finalPayload(msg);
      const s = this.shown[i];
      if (s) await this.target.edit(s.id, payload);
      else this.shown.push({ id: await this.target.more(payload), content: msg.content, button: false });
      this.shown[i] = { ...this.shown[i], content: msg.content, button: false };
    }
    // The live answer took more messages than the final one (rare: the final text is usually longer).
    for (const extra of this.shown.splice(messages.length)) await this.target.remove(extra.id);
  }
}

const livePages = (answer: LiveAnswer): string[] => pagesOf(liveContent(answer), MESSAGE_MAX_CHARS, WORKING);

/** A final message as sent: its own buttons (Run and Skip on a proposal), or none: the Stop button goes. */
const finalPayload = (msg: Outgoing): LivePayload => ({ content: msg.content, files: msg.files, components: msg.components ?? [] });
