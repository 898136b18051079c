import type { LiveAnswer } from "../live/live-answer.ts";
import type { Reply } from "./reply.ts";

/**
 * The I/O a front end gives the chat flow, for one conversation place (a Slack
 * thread, a slash command's channel, a Discord reply or interaction, a
 * terminal). The flow decides what to say and when; the surface decides how it
 * looks and which platform call carries it.
 */

/** A posted message, as the surface that posted it can find it again (a Slack ts, a Discord message id). */
export interface PostedRef {
  id: string;
}

/** Stops a progress indicator; resolves once a call in flight has settled, so nothing shows after the answer. */
export type StopProgress = () => Promise<void>;

export interface ChatSurface {
  /** Shows `reply` to everyone in the place. Null when the platform refused it (already logged). */
  post(reply: Reply): Promise<PostedRef | null>;
  /** Replaces what a posted message shows. False when the platform refused it. */
  edit(ref: PostedRef, reply: Reply): Promise<boolean>;
  /**
   * Shows `reply` to the person who asked only (Slack and Discord ephemeral messages).
   * Where the platform cannot (a reply to a Discord message, a terminal), it posts as `post` does.
   */
  postPrivate(reply: Reply): Promise<PostedRef | null>;
  /**
   * Shows `reply` to the person who asked and to no one else, as a message of
   * its own after anything already posted (a link that authorizes Duet at a
   * tool server). Absent where the platform cannot (a reply to a Discord
   * message, which everyone sees): the flow then never shows what it holds.
   */
  postSecret?(reply: Reply): Promise<PostedRef | null>;
  /** Shows that Duet is working (Slack's thread status, Discord's typing) until the returned stop. */
  showProgress(): StopProgress;
  /**
   * An answer that grows in this place as the turn runs, with a Stop button for
   * the room the surface answers in. Absent where an answer cannot grow (a private Discord reply; Slack's
   * response_url, which a slash command's live answer leaves for its fallback);
   * the flow then posts the whole answer at the end. `onPosted` hears of the
   * first message the answer is shown in, as soon as it is posted; `question`
   * (redacted) is what was asked, for a place that shows it above the answer.
   */
  live?(onPosted?: (ref: PostedRef) => void, question?: string): LiveView;
  /** Where workspace files can be posted here (answers' attachments, `get`); absent where they cannot. */
  files?: FileSurface;
  /**
   * Tells the person who asked, once, that their question waits behind others
   * (`note`, the words); the least noise the place allows (Slack: an ephemeral).
   * Resolves with what takes the sign back when the answer starts (a reaction),
   * if anything. Absent, the wait shows only the progress indicator.
   */
  queued?(note: string): Promise<Unqueue | void>;
}

/** Takes back a "you are queued" sign once the answer starts. */
export type Unqueue = () => Promise<void>;

/** A workspace file on its way to the chat: streamed from the Worker only when sent. */
export interface OutgoingFile {
  path: string;
  /** The name it shows with (the path's last part). */
  name: string;
  bytes: number;
  type: string;
  open(): Promise<ReadableStream<Uint8Array>>;
}

export interface FileSurface {
  /** The platform's name, for messages ("Slack"). */
  platform: string;
  /** The largest file the platform takes here. */
  maxBytes: number;
  /**
   * Posts the files in the place, `comment` with them; false when the platform refused (already logged).
   * `after` (an answer's files): the message the files follow is still being posted, and they are shown
   * only once it resolves true; their bytes may go to the platform before, where it takes them apart
   * from the message that shows them. Resolved false (the answer was not posted), nothing is shown.
   */
  send(files: OutgoingFile[], comment?: string, after?: Promise<boolean>): Promise<boolean>;
}

/**
 * One answer as it happens: shown (at the place's own pace) as it changes, then
 * replaced by the final reply. What it is handed is already redacted, a live
 * answer's last word held back until it is whole.
 */
export interface LiveView {
  update(answer: LiveAnswer): void;
  /**
   * Shows `reply` (the answer as a non-streamed one looks, or the failure) in
   * place of the live answer; `ended` is the last live answer with its held-back
   * word, for a place that cannot replace what it showed (a terminal).
   */
  finish(reply: Reply, ended?: LiveAnswer): Promise<PostedRef | null>;
}
