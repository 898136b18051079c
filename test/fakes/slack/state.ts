/**
 * What a fake Slack workspace holds, as a user would see it: channel and thread
 * messages (from people, from the bot, from response_urls), ephemeral messages,
 * reactions and uploaded files. The Web API handlers in web-api.ts change it;
 * tests read it.
 */

export interface FakeFile {
  id: string;
  filename: string;
  title?: string;
  declaredLength: number;
  content?: Buffer;
  /** Where completeUploadExternal shared it (absent until then). */
  channel?: string;
  threadTs?: string;
  initialComment?: string;
}

export interface SlackMessage {
  channel: string;
  ts: string;
  /** Set on thread replies (real Slack also sets it on a parent with replies; this fake does not). */
  thread_ts?: string;
  user?: string;
  bot_id?: string;
  /** Another app's message: the app's name, as Slack gives it in `bot_profile`. */
  app_name?: string;
  /** Slack's kind of message where it is not a plain one (an agent pane conversation's root: assistant_app_thread). */
  subtype?: string;
  text: string;
  blocks?: Block[];
  files?: FakeFile[];
  /** Files a person shared with the message, as Slack's `files[]` gives them (SharedFiles.share). */
  shared?: Record<string, unknown>[];
  /** How the message got there, so tests can tell a bot post from a response_url answer. */
  via: "user" | "chat.postMessage" | "response_url" | "files.completeUploadExternal" | "chat.startStream";
  edits: number;
  /** Set on a message the app streamed (chat.startStream); see streaming.ts. */
  stream?: StreamState;
}

/** A task_update chunk as Slack shows it: the latest state of each task id. */
export interface TaskUpdate {
  id: string;
  title: string;
  status: "pending" | "in_progress" | "complete" | "error";
  details?: string;
  output?: string;
}

export interface StreamState {
  /** When chat.startStream created the message (the fake's clock). */
  startedAt: number;
  /** Open until chat.stopStream or the stream's lifetime runs out. */
  open: boolean;
  /** A stream keeps the shape of its first content: markdown_text only, or chunks only. */
  mode: "text" | "chunks" | null;
  recipientUserId?: string;
  recipientTeamId?: string;
  tasks: TaskUpdate[];
  /** Every append that carried content, in order (for tests of what was streamed when). */
  appends: { at: number; text: string; tasks: string[] }[];
}

export interface EphemeralMessage {
  channel: string;
  user: string;
  text: string;
  blocks?: Block[];
  thread_ts?: string;
  via: "chat.postEphemeral" | "response_url";
}

/** Blocks are whatever JSON the bot sent; tests inspect them. */
export type Block = Record<string, any>;

export class Workspace {
  readonly messages: SlackMessage[] = [];
  readonly ephemeral: EphemeralMessage[] = [];
  readonly files = new Map<string, FakeFile>();
  /** key `${channel}/${ts}` -> reaction name -> users who reacted */
  readonly reactions = new Map<string, Map<string, Set<string>>>();
  /** key `${channel}/${threadTs}` -> the app's current thread status (assistant.threads.setStatus). */
  readonly threadStatus = new Map<string, string>();
  /** Every status the app set, in order: what people saw under the thread (with its loading messages, where given). */
  readonly statusLog: { channel: string; threadTs: string; status: string; loading?: string[] }[] = [];
  /** User group id -> its members' user ids (usergroups.users.list). */
  readonly usergroups = new Map<string, string[]>();
  /** User id -> display name (users.info); a user not set here is a member whose display name is `member-<id>`. */
  readonly people = new Map<string, string>();
  /** users.info calls, in order: the bot caches names, so a person asking twice is looked up once. */
  readonly lookups: string[] = [];
  /** User id -> the Home tab view Duet last published for them (views.publish). */
  readonly homeViews = new Map<string, { type: string; blocks: Block[] }>();
  /** Every views.publish, in order. */
  readonly publishes: { user: string; view: { type: string; blocks: Block[] } }[] = [];
  /** Modals opened (views.open), in order, with the trigger they answered. */
  readonly modals: { triggerId: string; view: Record<string, any> }[] = [];
  /** Channel id -> its members (users.conversations); a channel not set has none but the bot. */
  readonly members = new Map<string, Set<string>>();
  /** Agent pane threads: `${channel}/${threadTs}` -> the suggested prompts and title the app set. */
  readonly assistantThreads = new Map<string, { prompts?: { title: string; message: string }[]; promptsTitle?: string; titles: string[] }>();
  /** Channels Duet is not in (private ones it was never invited to): conversations.replies answers channel_not_found. */
  readonly unreadable = new Set<string>();
  private lastTs = 0;
  private fileSeq = 0;

  constructor(readonly teamId: string) {}

  /** Slack message ts: seconds with 6 decimals, unique and increasing per workspace. */
  nextTs(): string {
    const micros = Math.max(Date.now() * 1000, this.lastTs + 1);
    this.lastTs = micros;
    return `${Math.floor(micros / 1e6)}.${String(micros % 1e6).padStart(6, "0")}`;
  }

  nextFileId(): string {
    this.fileSeq += 1;
    return `F${String(this.fileSeq).padStart(9, "0")}`;
  }

  add(msg: Omit<SlackMessage, "ts" | "edits"> & { ts?: string }): SlackMessage {
    const full: SlackMessage = { ...msg, ts: msg.ts ?? this.nextTs(), edits: 0 };
    this.messages.push(full);
    // Slack clears the app's thread status when the app posts in that thread.
    if (msg.bot_id && msg.thread_ts) this.threadStatus.delete(`${msg.channel}/${msg.thread_ts}`);
    return full;
  }

  /** An empty status clears it, as in Slack. */
  setStatus(channel: string, threadTs: string, status: string, loading?: string[]): void {
    this.statusLog.push({ channel, threadTs, status, ...(loading ? { loading } : {}) });
    if (status) this.threadStatus.set(`${channel}/${threadTs}`, status);
    else this.threadStatus.delete(`${channel}/${threadTs}`);
  }

  statusOf(channel: string, threadTs: string): string | undefined {
    return this.threadStatus.get(`${channel}/${threadTs}`);
  }

  find(channel: string, ts: string): SlackMessage | undefined {
    return this.messages.find((m) => m.channel === channel && m.ts === ts);
  }

  /** Top-level messages of a channel (not thread replies). */
  channel(channel: string): SlackMessage[] {
    return this.messages.filter((m) => m.channel === channel && (!m.thread_ts || m.thread_ts === m.ts));
  }

  /** Replies in the thread under `threadTs`, oldest first (the parent excluded). */
  thread(channel: string, threadTs: string): SlackMessage[] {
    return this.messages.filter((m) => m.channel === channel && m.thread_ts === threadTs && m.ts !== threadTs);
  }

  /** Everything a person in the channel sees, top level and in threads. */
  everything(channel: string): SlackMessage[] {
    return this.messages.filter((m) => m.channel === channel);
  }

  reactionsOn(channel: string, ts: string): string[] {
    return [...(this.reactions.get(`${channel}/${ts}`)?.keys() ?? [])];
  }

  /** Returns false when this user already reacted with that name (Slack's already_reacted). */
  react(channel: string, ts: string, name: string, user: string): boolean {
    const key = `${channel}/${ts}`;
    const byName = this.reactions.get(key) ?? new Map<string, Set<string>>();
    this.reactions.set(key, byName);
    const users = byName.get(name) ?? new Set<string>();
    if (users.has(user)) return false;
    users.add(user);
    byName.set(name, users);
    return true;
  }

  /** Returns false when there was no such reaction by that user (Slack's no_reaction). */
  unreact(channel: string, ts: string, name: string, user: string): boolean {
    const byName = this.reactions.get(`${channel}/${ts}`);
    const users = byName?.get(name);
    if (!users?.delete(user)) return false;
    if (users.size === 0) byName?.delete(name);
    return true;
  }

  /** All text a user can read in a message: text, block texts and file contents' names. */
  static readable(msg: { text: string; blocks?: Block[] }): string {
    const parts = [msg.text];
    for (const block of msg.blocks ?? []) parts.push(...blockTexts(block));
    return parts.join("\n");
  }
}

export function blockTexts(block: Block): string[] {
  const out: string[] = [];
  if (typeof block.text === "string") out.push(block.text);
  else if (block.text && typeof block.text.text === "string") out.push(block.text.text);
  for (const f of block.fields ?? []) if (typeof f?.text === "string") out.push(f.text);
  for (const e of block.elements ?? []) if (typeof e?.text === "string") out.push(e.text);
  return out;
}
