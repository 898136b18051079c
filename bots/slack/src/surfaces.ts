import type { ChatSurface, FileSurface, LiveAnswer, LiveView, PostedRef, Reply, StopProgress } from "@duet/shared";
import type { Logger, RespondArguments } from "@slack/bolt";
import type { SlackLiveMessage } from "./live/live-message.ts";
import { renderReply } from "./render.ts";
import type { Rendered } from "./rendered.ts";
import type { SlackOut } from "./slack-api.ts";

/**
 * Where Slack shows the chat flow's replies: a conversation (a mention's
 * thread, a DM), or a slash command's response_url. Files go to the channel
 * (and thread) after the message they belong to.
 */

export interface ConversationPlace {
  channel: string;
  /** The thread to answer in; undefined answers in the conversation itself (a top-level DM). */
  threadTs?: string;
  /** Who asked: the one person a private reply is shown to. */
  user: string;
  /** The room answered in, named by Run and Skip buttons. */
  room?: string;
  /** A live answer here, its Stop button naming the room; absent, answers are posted whole. */
  live?: (onPosted?: (ts: string) => void, question?: string) => SlackLiveMessage;
  /** Where workspace files are posted (the same conversation and thread). */
  files?: FileSurface;
}

/** What a conversation shows under its thread while one turn works there. */
export interface TurnStatus {
  /** Shows that Duet works, until the returned stop (the flow stops it once the answer shows). */
  show(): StopProgress;
  /** For a turn that posted nothing. */
  clear(): Promise<void>;
  /** The answer's first message is being sent: a status call that ends after this may land after it. */
  posting?(): void;
  /** At the end of a live answer: clears the status where the answer's first post may not have (clear() when absent). */
  settle?(): Promise<void>;
  /** Hears the live answer as it grows (the agent pane names the command running). */
  follow?(answer: LiveAnswer): void;
}

/** A live answer's message as the surface uses it. */
type LiveMessage = Pick<SlackLiveMessage, "update" | "finish">;

/** A mention's thread or a DM: messages posted by the bot, the thread status while Duet works. */
export function conversationSurface(out: SlackOut, status: TurnStatus, place: ConversationPlace): ChatSurface {
  const { channel, threadTs } = place;
  const rendered = (reply: Reply) => renderReply(reply, { place: "thread", room: place.room });
  const uploadAll = async (r: Rendered) => {
    for (const upload of r.uploads) await out.upload(channel, upload, threadTs);
  };
  const post = async (reply: Reply): Promise<PostedRef | null> => {
    const r = rendered(reply);
    const ts = await out.post(channel, r.text, r.blocks, threadTs);
    // A post clears the thread status on Slack's side; without one it would linger.
    if (!ts) {
      await status.clear();
      return null;
    }
    await uploadAll(r);
    return { id: ts };
  };
  const postPrivate = async (reply: Reply): Promise<PostedRef | null> => {
    const r = rendered(reply);
    return (await out.postEphemeral(channel, place.user, r.text, r.blocks, threadTs)) ? { id: `ephemeral:${place.user}` } : null;
  };
  const live = place.live;
  return {
    post: (reply) => (refusedAsBusy(reply) ? postPrivate(reply) : post(reply)),
    async edit(ref, reply) {
      const r = rendered(reply);
      return out.update(channel, ref.id, r.text, r.blocks);
    },
    postPrivate,
    // An ephemeral message is seen by the asker alone.
    postSecret: postPrivate,
    // Only the asker sees it, in their thread: a busy channel gets no message per waiting person.
    queued: async (note) => void (await postPrivate({ kind: "hint", text: note })),
    showProgress: () => status.show(),
    ...(place.files ? { files: place.files } : {}),
    ...(live ? { live: (onPosted?: (ref: PostedRef) => void, question?: string) => liveView(followed(live(tsTo(onPosted), question), status), rendered, post, postPrivate, () => (status.settle ? status.settle() : status.clear())) } : {}),
  };
}

/** The live message, with the status hearing each state of the answer first. */
function followed(message: SlackLiveMessage, status: TurnStatus): LiveMessage {
  const follow = status.follow?.bind(status);
  if (!follow) return message;
  return {
    update(answer) {
      follow(answer);
      message.update(answer);
    },
    finish: (rendered) => message.finish(rendered),
  };
}

/**
 * A full room refused the question before anything was shown: only the person
 * who asked hears it (with the ⚠️ on their message). A burst of mentions in one
 * channel would otherwise post one notice each, far past Slack's one message a
 * second per channel; an ephemeral is not a channel message.
 */
const refusedAsBusy = (reply: Reply): boolean => reply.kind === "error" && reply.code === "room_busy";

/**
 * A live Slack message as the flow's live view: it ends as `render` shows the
 * reply. An answer whose message refused its final form (or was never posted)
 * is posted anew the surface's own way, then `after` runs (a thread's status
 * is cleared: a renewal in flight when the answer began could land after the
 * stream's first post, which Slack would not clear again). A refusal by a full
 * room, which comes before any live state, goes to the asker only.
 */
function liveView(
  message: LiveMessage,
  render: (reply: Reply) => Rendered,
  post: (reply: Reply) => Promise<PostedRef | null>,
  postPrivate: (reply: Reply) => Promise<PostedRef | null>,
  after: () => Promise<void> = async () => {},
): LiveView {
  return {
    update: (answer) => message.update(answer),
    async finish(reply) {
      if (refusedAsBusy(reply)) {
        const told = await postPrivate(reply);
        await after();
        return told;
      }
      const ts = await message.finish(render(reply));
      const shown = ts ? { id: ts } : await post(reply);
      await after();
      return shown;
    },
  };
}

/** The flow's listener for a posted message, as the live message reports it (a ts). */
const tsTo = (onPosted?: (ref: PostedRef) => void) => (onPosted ? (ts: string) => onPosted({ id: ts }) : undefined);

type Respond = (msg: RespondArguments) => Promise<unknown>;

export interface SlashPlace {
  channel: string;
  /** The subcommand, for logs. */
  command: string;
  /** The room answered in, named by Run and Skip buttons. */
  room?: string;
  /** A live answer posted in the channel by the bot (slash-command.ts says why); absent, answers are whole. */
  live?: (onPosted?: (ts: string) => void, question?: string) => SlackLiveMessage;
  /** Where workspace files are posted: the channel, since a response_url cannot carry them. */
  files?: FileSurface;
}

/**
 * A slash command: replies through its response_url (in the channel, or to the
 * caller only), files shared in the channel since a response_url cannot carry
 * them. The ack already told the caller Duet is working, so progress shows nothing more.
 * A live answer the channel refused (Duet is not a member) ends whole through the response_url.
 */
export function slashSurface(out: SlackOut, respond: Respond, place: SlashPlace, logger: Logger): ChatSurface {
  const rendered = (reply: Reply) => renderReply(reply, { place: "slash", room: place.room });
  const send = async (reply: Reply, visibility: "in_channel" | "ephemeral", replaceOriginal: boolean): Promise<PostedRef | null> => {
    const r = rendered(reply);
    const call = () => respond({ response_type: visibility, replace_original: replaceOriginal, text: r.text, blocks: r.blocks });
    try {
      // A new message in the channel waits the channel's turn; one only the caller sees, or one replaced, does not.
      await (visibility === "in_channel" && !replaceOriginal ? out.newMessage(place.channel, call) : call());
    } catch (err) {
      logger.warn(`response_url post failed for /duet ${place.command}: ${(err as Error)?.message ?? err}`);
      return null;
    }
    for (const upload of r.uploads) await out.upload(place.channel, upload);
    return { id: "response_url" };
  };
  const post = (reply: Reply) => send(reply, "in_channel", false);
  const postPrivate = (reply: Reply) => send(reply, "ephemeral", false);
  const live = place.live;
  return {
    post: (reply) => (refusedAsBusy(reply) ? postPrivate(reply) : post(reply)),
    // A response_url can replace the message it posted, which is the only one it knows.
    edit: async (_ref, reply) => (await send(reply, "in_channel", true)) !== null,
    postPrivate,
    // An ephemeral message is seen by the asker alone.
    postSecret: postPrivate,
    queued: async (note) => void (await postPrivate({ kind: "hint", text: note })),
    showProgress: () => async () => {},
    ...(place.files ? { files: place.files } : {}),
    ...(live ? { live: (onPosted?: (ref: PostedRef) => void, question?: string) => liveView(live(tsTo(onPosted), question), rendered, post, postPrivate) } : {}),
  };
}
