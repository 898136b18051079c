import { DuetError } from "@duet/shared";

/** GitHub's message in an error answer, cut short (its body never holds a token). */
async function messageOf(res: Response): Promise<string> {
  const body = (await res.json().catch(() => null)) as { message?: unknown } | null;
  return typeof body?.message === "string" ? body.message.slice(0, 200) : `HTTP ${res.status}`;
}

/**
 * How long GitHub asks us to wait, in ms, or null when it asks nothing:
 * `retry-after` (seconds; its secondary rate limits) or, with no requests
 * left, `x-ratelimit-reset` (epoch seconds; its primary one).
 */
export function retryAfterMs(res: Response, nowMs: number): number | null {
  const after = Number(res.headers.get("retry-after"));
  if (res.headers.has("retry-after") && Number.isFinite(after) && after >= 0) return after * 1000;
  if (res.headers.get("x-ratelimit-remaining") === "0") {
    const reset = Number(res.headers.get("x-ratelimit-reset"));
    if (Number.isFinite(reset)) return Math.max(0, reset * 1000 - nowMs);
  }
  return null;
}

/**
 * A GitHub error answer as a DuetError: a rate limit is retryable after the
 * wait GitHub names, as is GitHub failing (5xx); refused credentials and any
 * other refusal are not, and say so.
 */
export async function githubFailure(res: Response, doing: string, nowMs: number): Promise<DuetError> {
  const wait = res.status === 403 || res.status === 429 ? retryAfterMs(res, nowMs) : null;
  const said = await messageOf(res);
  if (wait !== null) {
    const seconds = Math.ceil(wait / 1000);
    return new DuetError("github_error", `GitHub is limiting requests (while ${doing}); try again in ${seconds} s`, { status: 503, retryable: true, retryAfterMs: wait });
  }
  if (res.status === 401) {
    return new DuetError("github_error", `GitHub refused the App's credentials while ${doing} (check GITHUB_APP_ID and GITHUB_APP_PRIVATE_KEY): ${said}`, {
      retryable: false,
    });
  }
  return new DuetError("github_error", `GitHub answered HTTP ${res.status} while ${doing}: ${said}`, { retryable: res.status >= 500 });
}
