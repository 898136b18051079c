/** Backoff when the endpoint says nothing: 0.5 s, 1 s, 2 s, ... */
const BACKOFF_BASE_MS = 500;
/** Attempts after the first; each must also end inside the model deadline. */
export const MODEL_MAX_RETRIES = 3;
/** A Retry-After longer than this is not waited for: the person hears the endpoint is busy instead. */
export const RETRY_AFTER_MAX_MS = 20_000;

/** The endpoint refused the request with an HTTP status (and perhaps said why). */
export class ModelRefusal extends Error {
  constructor(
    readonly status: number,
    readonly headers: Record<string, string> = {},
    readonly detail = "",
  ) {
    super(`the model endpoint answered HTTP ${status}${detail ? `: ${detail}` : ""}`);
    this.name = "ModelRefusal";
  }

  /** 408, 409, 429 and 5xx: the endpoint was busy or broken for a moment. */
  get isRetryable(): boolean {
    return this.status === 408 || this.status === 409 || this.status === 429 || this.status >= 500;
  }
}

/**
 * How long to wait before asking the model again after `err`, or null when a
 * retry cannot help: the refusal is not 408, 409, 429 or 5xx, the retries are
 * spent, or the server asks for a long wait. The server's Retry-After wins:
 * retry-after-ms, then seconds or an HTTP date.
 */
export function retryDelayMs(err: unknown, attempt: number, now = Date.now()): number | null {
  if (!(err instanceof ModelRefusal) || !err.isRetryable || attempt >= MODEL_MAX_RETRIES) return null;
  const asked = retryAfterMs(err.headers, now);
  if (asked !== null) return asked <= RETRY_AFTER_MAX_MS ? asked : null;
  return BACKOFF_BASE_MS * 2 ** attempt;
}

function retryAfterMs(headers: Record<string, string>, now: number): number | null {
  const ms = Number.parseFloat(headers["retry-after-ms"] ?? "");
  if (Number.isFinite(ms) && ms >= 0) return ms;
  const raw = headers["retry-after"];
  if (!raw) return null;
  const seconds = Number(raw.trim());
  if (raw.trim() !== "" && Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
  const at = Date.parse(raw);
  return Number.isFinite(at) ? Math.max(0, at - now) : null;
}
