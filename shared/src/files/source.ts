import { plainHttpUrl } from "../wire/http-url.ts";

/**
 * Fetching a file a person shared from the chat platform that holds it. A bot
 * token may go with the request, so the URL (and every redirect after it) must
 * be on the platform's own https hosts: a file URL in an event is data, and a
 * redirect is the server's word, neither is trusted to pick where the token goes.
 */

/** Where a platform serves its files from. */
export interface SourceHosts {
  /** The platform's name, for messages ("Slack"). */
  platform: string;
  /** https host names: exact (`cdn.discordapp.com`), or every subdomain when written with a leading dot (`.slack.com`). */
  hosts: readonly string[];
  /**
   * Exact origins allowed besides, http too (`http://127.0.0.1:4567`): a fake
   * platform in tests or a development proxy, only ever set by configuration.
   */
  origins: readonly string[];
}

/** Why a shared file could not be fetched. */
export type SourceProblem =
  /** The URL, or a redirect from it, leads off the platform's hosts: nothing was sent there. */
  | "off_host"
  /** The platform answered a web page instead of the file (Slack without `files:read`). */
  | "login_page"
  /** Gone, expired or refused (HTTP 403, 404, 410, too many redirects, a network error). */
  | "unavailable";

export class SourceError extends Error {
  constructor(
    readonly problem: SourceProblem,
    message: string,
  ) {
    super(message);
    this.name = "SourceError";
  }
}

/** Redirects followed before giving up; a platform's file URL needs one at most. */
export const SOURCE_MAX_REDIRECTS = 3;

/** True when `url` (http(s), no credentials: plainHttpUrl) is on one of the platform's hosts (https, default port) or an allowed origin. */
export function isAllowedSource(url: URL, src: SourceHosts): boolean {
  if (!plainHttpUrl(url)) return false;
  if (src.origins.includes(url.origin)) return true;
  if (url.protocol !== "https:" || url.port !== "") return false;
  const host = url.hostname.toLowerCase();
  return src.hosts.some((h) => (h.startsWith(".") ? host.endsWith(h) || host === h.slice(1) : host === h));
}

/**
 * GETs `raw` with `headers`, following redirects by hand so each hop is checked
 * before anything is sent to it; the body is left unread for the caller to
 * stream. Throws SourceError.
 */
export async function fetchFromSource(raw: string, src: SourceHosts, headers: Record<string, string> = {}, signal?: AbortSignal): Promise<Response> {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new SourceError("off_host", `not a URL: ${raw.slice(0, 80)}`);
  }
  for (let hop = 0; ; hop++) {
    if (!isAllowedSource(url, src)) throw new SourceError("off_host", `${url.protocol}//${url.host} is not one of ${src.platform}'s file hosts`);
    let res: Response;
    try {
      res = await fetch(url, { headers, redirect: "manual", signal });
    } catch (err) {
      throw new SourceError("unavailable", `could not reach ${url.host}: ${(err as Error).message}`);
    }
    const location = res.headers.get("location");
    if (res.status >= 300 && res.status < 400 && location) {
      await res.body?.cancel().catch(() => undefined);
      if (hop >= SOURCE_MAX_REDIRECTS) throw new SourceError("unavailable", `more than ${SOURCE_MAX_REDIRECTS} redirects`);
      url = new URL(location, url);
      continue;
    }
    if (!res.ok || !res.body) {
      await res.body?.cancel().catch(() => undefined);
      throw new SourceError("unavailable", `${src.platform} answered HTTP ${res.status}`);
    }
    return res;
  }
}

/** The declared length of a response, when it is a number. */
export function declaredLength(res: Response): number | undefined {
  const raw = res.headers.get("content-length");
  const n = raw === null ? NaN : Number(raw);
  return Number.isSafeInteger(n) && n >= 0 ? n : undefined;
}
