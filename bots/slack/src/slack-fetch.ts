import type { webApi } from "@slack/bolt";
import { STATUS_CODES } from "node:http";
import { type RawHeaders, requestWhole } from "@duet/shared/worker-fetch";

type FetchResponse = Awaited<ReturnType<webApi.FetchFunction>>;
type FetchHeaders = FetchResponse["headers"];

/**
 * The fetch the Web API client calls Slack with (its `fetch` option). A Web
 * API call is a small form POST answered by a small JSON body; sent through
 * undici's `request` instead of the WHATWG fetch built on it, it skips the
 * Request and Response objects, their web streams and abort signals, which
 * under a burst of answers cost the bot more CPU than the calls themselves
 * (bench/NOTES.md, "200 at once"). Same connection pool: the global
 * dispatcher, which Node's fetch uses too.
 *
 * Anything else (a file's bytes in a multipart body, a GET) goes to the global
 * fetch unchanged. What the client reads of an answer is all here: status,
 * headers, text (read whole on arrival: the client leaves a 429's body unread).
 * A redirect fails as fetch's `redirect: "error"` does, and a
 * lost connection as fetch's "fetch failed", so the client maps both as it maps fetch's own.
 */
export const slackFetch: webApi.FetchFunction = async (input, init) => {
  if (typeof input !== "string" || init?.method !== "POST" || typeof init.body !== "string") {
    // Node's Response has what the client reads; its Headers type here lacks the iterable parts.
    return fetch(input, init as RequestInit) as unknown as Promise<FetchResponse>;
  }
  const res = await requestWhole(input, "POST", init.headers ?? {}, init.body, init.signal);
  if (res.status >= 300 && res.status < 400) throw new TypeError("fetch failed", { cause: new Error(`unexpected redirect (${res.status})`) });
  return new SlackAnswer(input, res.status, res.headers, res.bytes);
};

/** The part of a Response the Web API client reads. */
class SlackAnswer implements FetchResponse {
  readonly ok: boolean;
  readonly statusText: string;
  readonly headers: AnswerHeaders;

  constructor(
    readonly url: string,
    readonly status: number,
    headers: RawHeaders,
    private readonly bytes: ArrayBuffer,
  ) {
    this.ok = status >= 200 && status < 300;
    this.statusText = STATUS_CODES[status] ?? "";
    this.headers = new AnswerHeaders(headers);
  }

  async text(): Promise<string> {
    return Buffer.from(this.bytes).toString("utf8");
  }

  async json(): Promise<unknown> {
    return JSON.parse(await this.text());
  }

  async arrayBuffer(): Promise<ArrayBuffer> {
    return this.bytes;
  }
}

/** undici's header object (names in lower case) read as a Headers. */
class AnswerHeaders implements FetchHeaders {
  constructor(private readonly raw: RawHeaders) {}

  get(name: string): string | null {
    const v = this.raw[name.toLowerCase()];
    return v === undefined ? null : Array.isArray(v) ? v.join(", ") : v;
  }

  has(name: string): boolean {
    return this.raw[name.toLowerCase()] !== undefined;
  }

  *entries(): IterableIterator<[string, string]> {
    for (const name of Object.keys(this.raw)) {
      const v = this.get(name);
      if (v !== null) yield [name, v];
    }
  }

  [Symbol.iterator](): IterableIterator<[string, string]> {
    return this.entries();
  }

  forEach(fn: (value: string, name: string) => void): void {
    for (const [name, value] of this.entries()) fn(value, name);
  }
}
