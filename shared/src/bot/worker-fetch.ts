import { request } from "undici";

/** Response headers as undici gives them (names in lower case). */
export type RawHeaders = Record<string, string | string[] | undefined>;

/**
 * One request through undici's `request`, its answer read whole (an unread body
 * would hold its connection). A failure is thrown as fetch throws it: the
 * signal's reason when it fired, else a TypeError "fetch failed" with the cause.
 */
export async function requestWhole(url: string, method: "POST" | "PUT" | "DELETE", headers: Record<string, string>, body: string, signal?: AbortSignal | null): Promise<{ status: number; headers: RawHeaders; bytes: ArrayBuffer }> {
  try {
    const res = await request(url, { method, headers, body, signal: signal ?? undefined });
    return { status: res.statusCode, headers: res.headers, bytes: await res.body.arrayBuffer() };
  } catch (err) {
    if (signal?.aborted) throw signal.reason;
    throw new TypeError("fetch failed", { cause: err });
  }
}

/**
 * The fetch both bots' Worker clients send their small JSON calls with (a claim,
 * a confirm, a pace slot): a POST, PUT or DELETE with a JSON body, answered
 * by JSON, goes through undici's `request` and comes back as a Response made
 * from the whole answer, which skips fetch's Request object, its controller
 * and the web stream of the answer's bytes (bench/NOTES.md, "200 at once").
 * Same connection pool: the global dispatcher, which Node's fetch uses too.
 *
 * Everything else goes to the global fetch unchanged: the turn's event
 * stream (read as it comes), files either way (streamed, never held whole),
 * reads. A failure looks as fetch's does ("fetch failed" with the cause, or
 * the signal's reason), so the client maps it as it maps fetch's own.
 */
export const workerFetch: typeof fetch = async (input, init) => {
  const headers = init?.headers;
  if (typeof input !== "string" || !SMALL_METHODS.has(init?.method ?? "") || typeof init?.body !== "string" || !isRecord(headers) || headers.accept !== undefined) {
    return fetch(input, init);
  }
  const res = await requestWhole(input, init.method as "POST" | "PUT" | "DELETE", headers, init.body, init.signal);
  const answer = new Headers();
  for (const [name, value] of Object.entries(res.headers)) {
    if (value === undefined) continue;
    for (const v of Array.isArray(value) ? value : [value]) answer.append(name, v);
  }
  return new Response(NO_BODY.has(res.status) ? null : res.bytes, { status: res.status, headers: answer });
};

const SMALL_METHODS = new Set(["POST", "PUT", "DELETE"]);
/** Statuses a Response may not carry a body with. */
const NO_BODY = new Set([101, 204, 205, 304]);

const isRecord = (h: HeadersInit | undefined): h is Record<string, string> => typeof h === "object" && h !== null && !Array.isArray(h) && !(h instanceof Headers);
