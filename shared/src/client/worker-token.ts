/**
 * The bots' start-up check of DUET_API_TOKEN: one authenticated request to the
 * Worker. Every `/api/*` path sits behind the token check and `/api/rooms` (no
 * room id) is no route, so the Worker answers 401 for a wrong token and 404 for
 * a right one without waking any room.
 */

export type TokenCheck =
  | { status: "accepted" }
  /** The Worker said no: the bot cannot do anything useful and should not start. */
  | { status: "refused"; reason: string }
  /** No verdict (Worker down, a proxy's error): the bot starts and says so when asked. */
  | { status: "unknown"; reason: string };

const CHECK_TIMEOUT_MS = 5_000;

export async function checkWorkerToken(baseUrl: string, token: string, fetchImpl: typeof fetch = fetch): Promise<TokenCheck> {
  const url = `${baseUrl.replace(/\/+$/, "")}/api/rooms`;
  let res: Response;
  let body = "";
  try {
    res = await fetchImpl(url, { headers: { authorization: `Bearer ${token}` }, signal: AbortSignal.timeout(CHECK_TIMEOUT_MS) });
    body = await res.text();
  } catch {
    return { status: "unknown", reason: `cannot reach the Worker at ${baseUrl}` };
  }
  if (res.status === 401) return { status: "refused", reason: `the Worker at ${baseUrl} refused DUET_API_TOKEN (401): set the same token on both` };
  // 503 with the token's error code: the Worker has no token set, so its API is closed to everyone.
  if (res.status === 503 && codeOf(body) === "unauthorized") {
    return { status: "refused", reason: `the Worker at ${baseUrl} has no DUET_API_TOKEN set (503), so its API is closed` };
  }
  if (res.status === 404 || res.ok) return { status: "accepted" };
  return { status: "unknown", reason: `the Worker at ${baseUrl} answered HTTP ${res.status}` };
}

function codeOf(body: string): unknown {
  try {
    return (JSON.parse(body) as { code?: unknown }).code;
  } catch {
    return undefined;
  }
}
