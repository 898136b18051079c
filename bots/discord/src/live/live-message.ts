import { ANSWER_NOTES, cleanModelText, LatestThrottle, type LiveAnswer, type LiveRunView, liveRunViews, pageChanges, pagesOf, realTimers, type Timers } from "@duet/shared";
import type { Logger } from "../deps.ts";
import { withoutPreviews } from "../links.ts";
import { MESSAGE_MAX_CHARS, type Outgoing } from "../render.ts";
import type { RowJson } from "../components-json.ts";
import { type LivePayload, type LiveTarget, payloadOf } from "./targets.ts";

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

export function stopRow(room: string): RowJson {
  return { type: 1, components: [{ type: 2, style: 4, label: "Stop", custom_id: `${STOP_PREFIX}${room}` }] };
}

/** The model's text so far, as shown live. */
export const liveText = (answer: LiveAnswer): string => withoutPreviews(cleanModelText(answer.text));

/** A line per command: its state, the command and its status. */
export const liveRunLines = (answer: LiveAnswer): string[] =>
  liveRunViews(answer).map((r) => `${ICON[r.state]} \`${r.command.replace(/`/g, "'")}\` · ${r.status}`);

/** The live text: the answer so far, then a line per command. */
export function liveContent(answer: LiveAnswer): string {
  return [liveText(answer), liveRunLines(answer).join("\n")].filter(Boolean).join("\n\n");
}

/** How a live answer is laid out in messages: each page as sent, the Stop row on the last. */
export interface LiveLayout {
  pages(answer: LiveAnswer, stop: RowJson): LivePayload[];
}

/** Today's layout: the live text in messages of 2,000 characters. */
export const CLASSIC_LIVE: LiveLayout = {
  pages: (answer, stop) => pagesOf(liveContent(answer), MESSAGE_MAX_CHARS, WORKING).map((content, i, all) => ({ content, components: i === all.length - 1 ? [stop] : [] })),
};

type State = { kind: "live"; answer: LiveAnswer } | { kind: "final"; messages: Outgoing[] };

export interface DiscordLiveOptions {
  room: string;
  timers?: Timers;
  intervalMs?: number;
  /** How the live answer is laid out (default CLASSIC_LIVE). */
  layout?: LiveLayout;
  /** Hears the id of the answer's first message as soon as it is posted. */
  onPosted?: (id: string) => void;
}

/** What a message shows, to tell whether an edit would change it. */
const shownAs = (p: LivePayload) => JSON.stringify([p.v2 ?? false, p.content, p.components]);

export class DiscordLiveMessage {
  /** The messages shown so far, in order, and what each shows. */
  private shown: { id: string; payload: LivePayload }[] = [];
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

  private pages(answer: LiveAnswer): LivePayload[] {
    return (this.opts.layout ?? CLASSIC_LIVE).pages(answer, stopRow(this.opts.room));
  }

  private async show(given: State, newest: () => State): Promise<void> {
    const first = this.shown.length === 0;
    const state = first ? await this.showFirst(newest) : given;
    if (state.kind === "final") return this.showFinal(state.messages, first ? 1 : 0);
    const pages = this.pages(state.answer);
    for (const [i, s] of this.shown.entries()) {
      // A message past the pages keeps its text and loses the Stop button.
      const payload = pages[i] ?? { ...s.payload, components: s.payload.v2 ? s.payload.components : [] };
      if (shownAs(payload) === shownAs(s.payload)) continue;
      await this.target.edit(s.id, payload);
      this.shown[i] = { ...s, payload };
    }
    for (const payload of pages.slice(this.shown.length)) this.shown.push({ id: await this.target.more(payload), payload });
  }

  /**
   * Nothing shown yet: shows the first message of the newest state when the
   * channel's turn comes, and returns that state for the rest of its messages.
   */
  private async showFirst(newest: () => State): Promise<State> {
    let state = newest();
    let payload: LivePayload = { content: "", components: [] };
    const id = await this.target.first(() => {
      state = newest();
      payload = state.kind === "final" ? payloadOf(state.messages[0]) : this.pages(state.answer)[0];
      return payload;
    });
    this.shown.push({ id, payload });
    this.opts.onPosted?.(id);
    return state;
  }

  /**
   * Puts the final messages in place, from message `from` (the ones before it
   * already show it). A message cannot change between V2 and classic: one
   * that would is removed and the final one posted instead.
   */
  private async showFinal(messages: Outgoing[], from = 0): Promise<void> {
    for (const [i, msg] of messages.entries()) {
      if (i < from) continue;
      const payload = payloadOf(msg);
      const s = this.shown[i];
      if (s && (s.payload.v2 ?? false) === (payload.v2 ?? false)) {
        await this.target.edit(s.id, payload);
        this.shown[i] = { id: s.id, payload };
        continue;
      }
      if (s) await this.target.remove(s.id);
      this.shown[i] = { id: await this.target.more(payload), payload };
    }
    // The live answer took more messages than the final one (rare: the final text is usually longer).
    for (const extra of this.shown.splice(messages.length)) await this.target.remove(extra.id);
  }
}
