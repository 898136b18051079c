/**
 * One error vocabulary for Worker answers and client failures: a stable `code`,
 * a message a person can act on, whether a retry may help, and when.
 */
export const ERROR_CODES = {
  invalid_request: 400,
  unauthorized: 401,
  /** A person deciding a command proposed for their own question where DUET_APPROVE_OWN=no. */
  own_proposal: 403,
  not_found: 404,
  method_not_allowed: 405,
  /** An approval that was already run or skipped. */
  already_decided: 409,
  /** A claimed message (CLAIM_HEADER) whose key another delivery of the same event asked with first: that one answers it. */
  answered_elsewhere: 409,
  /** A room already keeps as many pinned facts as it may (FACTS_PER_ROOM): one must be forgotten first. */
  memory_full: 409,
  /** A reset whose question was asked before the room was last reset (a stale or repeated click): nothing was reset again. */
  already_reset: 409,
  /** A pull request was asked for, but the room's checkout holds no change against its base. */
  nothing_changed: 409,
  /** An approval that waited past DUET_APPROVAL_TTL_MS: nothing was run. */
  approval_expired: 410,
  payload_too_large: 413,
  unsupported_media_type: 415,
  room_busy: 429,
  /** A daily token budget (DUET_ROOM_DAILY_TOKENS, DUET_USER_DAILY_TOKENS) is used up: no model call until it resets. */
  over_budget: 429,
  internal: 500,
  model_error: 502,
  /** GitHub answered with an error, refused for a rate limit, or could not be reached. */
  github_error: 502,
  /** The plain git remote (DUET_GIT_REMOTE_URL) answered with an error or could not be reached. */
  git_remote_error: 502,
  sandbox_error: 502,
  model_not_configured: 503,
  /** A repository was to be linked, and no GitHub App is configured (GITHUB_APP_*). */
  github_not_configured: 503,
  /** Something was to be kept sealed (a tool server's headers), and the Worker has no DUET_STORE_KEY to seal it with. */
  store_closed: 503,
  model_timeout: 504,
  // Client-side only: the Worker never answered.
  worker_unreachable: 0,
  worker_timeout: 0,
  bad_response: 0,
} as const;
export type ErrorCode = keyof typeof ERROR_CODES;

export class DuetError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  readonly retryable: boolean;
  readonly retryAfterMs?: number;
  readonly details?: Record<string, string[]>;

  constructor(
    code: ErrorCode,
    message: string,
    opts: { status?: number; retryable?: boolean; retryAfterMs?: number; details?: Record<string, string[]> } = {},
  ) {
    super(message);
    this.name = "DuetError";
    this.code = code;
    this.status = opts.status ?? ERROR_CODES[code];
    this.retryable = opts.retryable ?? isRetryableCode(code);
    this.retryAfterMs = opts.retryAfterMs;
    this.details = opts.details;
  }

  /** The JSON body the Worker sends for this error. */
  toBody() {
    return {
      error: this.message,
      code: this.code,
      ...(this.details ? { details: this.details } : {}),
      ...(this.retryable ? { retryable: true } : {}),
      ...(this.retryAfterMs !== undefined ? { retryAfterMs: this.retryAfterMs } : {}),
    };
  }
}

function isRetryableCode(code: ErrorCode): boolean {
  return (
    code === "room_busy" ||
    code === "model_error" ||
    code === "github_error" ||
    code === "model_timeout" ||
    code === "sandbox_error" ||
    code === "worker_unreachable" ||
    code === "worker_timeout" ||
    code === "internal"
  );
}

/** A short line for chat: what happened and what to try. Never a stack trace. */
export function describeForUser(err: unknown): string {
  if (!(err instanceof DuetError)) return "Something went wrong on Duet's side. Please try again in a moment.";
  switch (err.code) {
    case "worker_unreachable":
      return "Duet's back end can't be reached right now. Please try again in a minute; if it keeps happening, ask an admin to check the Worker.";
    case "worker_timeout":
      return "Duet's back end took too long to answer. Please try again; a shorter request may help.";
    case "room_busy":
      return "This room has too many requests waiting. Please wait for the current answers and try again.";
    case "over_budget":
    case "memory_full":
      return err.message;
    case "not_found":
      return `${err.message}.`;
    case "model_timeout":
      return "The AI model took too long to answer. Please try again in a moment.";
    case "model_error":
      return `The AI model failed to answer (${err.message}). Please try again in a moment.`;
    case "model_not_configured":
      return "No AI model is configured for Duet yet. Ask an admin to set MODEL_PROVIDER (see docs/configuration.md); `run` commands still work.";
    case "github_not_configured":
    case "store_closed":
      return err.message;
    case "sandbox_error":
      return `The sandbox failed (${err.message}). Please try again in a moment.`;
    case "invalid_request": {
      const fields = err.details ? Object.values(err.details).flat().join("; ") : "";
      return `That request was not accepted: ${fields || err.message}.`;
    }
    case "answered_elsewhere":
      return "This message is already being answered by another delivery of it.";
    case "already_decided":
      return `That command was already decided (${err.message}); nothing changed.`;
    case "approval_expired":
      return "That command waited too long for approval and expired; nothing was run. Ask again to get a fresh one.";
    case "payload_too_large":
      return "That message is too large for Duet. Please shorten it.";
    case "unauthorized":
      return "Duet's bot and back end disagree on the API token. Ask an admin to check DUET_API_TOKEN.";
    default:
      return `Duet could not answer (${err.message}). Please try again.`;
  }
}
