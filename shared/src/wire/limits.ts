/**
 * Every number the Worker and the bots agree on, with the reason beside it.
 * Changing one here changes it for both sides of the wire.
 */

/** Longest user text accepted for one message; long enough for a pasted stack trace. */
export const TEXT_MAX_CHARS = 8_000;
/** Longest command accepted by `/sandbox/exec` (a shell one-liner or a small heredoc). */
export const CMD_MAX_CHARS = 8_000;
/** Largest request body the Worker reads; anything bigger is refused with 413 before parsing. */
export const BODY_MAX_BYTES = 64 * 1024;
/** Longest user id kept in history (Slack and Discord ids are far shorter). */
export const USER_ID_MAX_CHARS = 128;
/** Longest display name kept with a message: Slack allows 80, Discord 32. */
export const USER_NAME_MAX_CHARS = 80;
/** Longest idempotency key (a Slack event id or a Discord snowflake fits many times). */
export const IDEMPOTENCY_KEY_MAX_CHARS = 200;
/** How long an answered idempotency key replays the stored answer. */
export const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;

/** Room ids: `<platform>-<workspace>-<channel>[-<thread>]`, safe in a URL path and a file name. */
export const ROOM_ID_PATTERN = /^[A-Za-z0-9._-]{1,200}$/;

/** Messages kept per room: enough to scroll back through a session, small enough to rewrite cheaply. */
export const HISTORY_KEEP = 50;
/** Messages of history sent to the model as context: the recent exchange, within a small model's window. */
export const MODEL_CONTEXT_MESSAGES = 10;
/**
 * Turns allowed to wait behind the running one; the next is refused (429, with
 * no Retry-After: it is not asked again). A busy channel's burst (fifty
 * questions within a second) waits whole, in the order asked; at about an
 * answer a second per channel (the chat platforms' pace) the last of a full
 * line hears in under two minutes, within the bots' wait for a turn.
 */
export const ROOM_QUEUE_MAX = 100;

/** Commands run per reply unless the Worker's config says otherwise. */
export const DEFAULT_MAX_RUNS_PER_REPLY = 5;
/** Characters of each command's output quoted in the plain-text `reply`, which the API has always cut there. */
export const REPLY_SUMMARY_CHARS = 500;
/** Bytes of stdout and of stderr kept per command in the structured `runs`. */
export const RUN_OUTPUT_MAX_BYTES = 64 * 1024;

/**
 * Tokens a model may write per answer. Ollama and llama.cpp's server generate
 * without limit unless told; a rambling model would run into the deadline and the
 * person would lose the whole answer. 1024 holds a long explanation and a few commands.
 */
export const DEFAULT_MODEL_MAX_TOKENS = 1024;
/** Low, so commands are written the same way each time; not 0, which makes small models repeat themselves. */
export const DEFAULT_MODEL_TEMPERATURE = 0.2;
/** Default model deadline; a slow model answers 504 rather than hanging the thread. */
export const DEFAULT_MODEL_TIMEOUT_MS = 30_000;
/** Default per-command deadline inside the sandbox. */
export const DEFAULT_COMMAND_TIMEOUT_MS = 30_000;
/**
 * Bots wait this long for the Worker: the model deadline, plus a few commands,
 * plus slack for queueing behind other turns in the room.
 */
export const DEFAULT_CLIENT_TIMEOUT_MS = 180_000;
/** A workspace room's clean-up visits every room Duet had there; the bots wait this long for it. */
export const WORKSPACE_CLEANUP_TIMEOUT_MS = 10 * 60_000;

/** How long a proposed command waits for a person to run or skip it, unless DUET_APPROVAL_TTL_MS says otherwise. */
export const DEFAULT_APPROVAL_TTL_MS = 60 * 60 * 1000;
/** Approval ids are UUIDs: anything else is refused before the room is asked. */
export const APPROVAL_ID_PATTERN = /^[A-Za-z0-9-]{1,64}$/;
/**
 * Audit rows kept per room; the oldest row's slot is reused after that (an UPDATE,
 * one row written, where a DELETE plus an INSERT would be two). A row holds one
 * event, or every automatic command of one turn.
 */
export const AUDIT_KEEP = 500;

/** One file into or out of a workspace, unless DUET_FILE_MAX_BYTES says otherwise: above a chat file, below a container's memory. */
export const DEFAULT_FILE_MAX_BYTES = 25 * 1024 * 1024;
/** A room's whole workspace, unless SANDBOX_WORKSPACE_MAX_BYTES says otherwise. */
export const DEFAULT_WORKSPACE_MAX_BYTES = 1024 * 1024 * 1024;
/** A room's searchable conversation, in bytes of text: 8 MiB holds years of a busy channel (about 8,000 turns of a kilobyte) and stays small next to a DO's 10 GB. */
export const DEFAULT_ROOM_HISTORY_MAX_BYTES = 8 * 1024 * 1024;
/** Recalled turns shown to the model per ask: 800 tokens (about 3,200 characters) is a handful of earlier turns, small beside the window. */
export const DEFAULT_RECALL_TOKENS = 800;
/**
 * History fallen out of the model's window before the room's model summarises it again: 2,000 tokens
 * (about 8,000 characters, ten or so turns) makes a summary call rare beside the turns it follows.
 */
export const DEFAULT_SUMMARY_TOKENS = 2000;
/** The longest summary kept and shown: 600 tokens (about 2,400 characters) holds a page of decisions, small beside the window. */
export const SUMMARY_TOKENS_SHOWN = 600;
