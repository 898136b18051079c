import type { ChannelPace, DeliveryClaims, FlowDeps, GuardedAction, SourceHosts } from "@duet/shared";
import type { AskedMessages } from "./asked-messages.ts";
import type { AccessRule, ComponentsStyle } from "./config.ts";

/** What the event handlers share: the chat flow's deps (the bot's secrets bound in) and a logger. */

export interface Logger {
  info(msg: string): void;
  warn(msg: string): void;
  error(msg: string): void;
}

export const consoleLogger: Logger = {
  info: (m) => console.log(`[discord] ${m}`),
  warn: (m) => console.warn(`[discord] ${m}`),
  error: (m) => console.error(`[discord] ${m}`),
};

export interface BotDeps {
  flow: FlowDeps;
  log: Logger;
  /** Message ids already answered by any process: a gateway resume can replay MESSAGE_CREATE, and a guild may move to another shard process. */
  claims: DeliveryClaims;
  /** How often a mention's typing indicator is renewed while the Worker works. */
  typingRenewMs: number;
  /** Who may run, approve, change the policy and reset (DISCORD_ALLOW_*). */
  access: Record<GuardedAction, AccessRule>;
  /** The largest file shared or posted (DUET_FILE_MAX_BYTES). */
  fileMaxBytes: number;
  /** Where attachments may be fetched from: Discord's CDN (and DISCORD_CDN_ORIGINS). */
  cdn: SourceHosts;
  /** The process's one pace for new messages, by channel id: every message Duet posts in a channel waits its turn. */
  pace: ChannelPace;
  /** Least time between two edits of a live answer (default LIVE_INTERVAL_MS). */
  liveIntervalMs?: number;
  /** The messages "Ask Duet" modals are open on, as the command showed them. */
  asked: AskedMessages;
  /** How answers are laid out (DISCORD_COMPONENTS). */
  components: ComponentsStyle;
}

/** Discord shows "typing" for 10 s; renewing every 8 s keeps it on without gaps. */
export const TYPING_RENEW_MS = 8_000;
