/**
 * One look at an OpenAI-compatible model endpoint: a request to its model list.
 * An endpoint that cannot be reached, or that refuses the key, would fail every
 * ask the same way; any other answer (even 404, from servers without the list)
 * means it is there. `pnpm eval` stops on a problem, `pnpm dev` warns.
 */

/** What is wrong with the endpoint, as a sentence naming its URL (never the key); null when it answered. */
export async function modelEndpointProblem(baseUrl: string, apiKey: string | undefined, timeoutMs: number): Promise<string | null> {
  const url = new URL(`${baseUrl.replace(/\/+$/, "")}/models`);
  let res: Response;
  try {
    res = await fetch(url, { headers: apiKey ? { authorization: `Bearer ${apiKey}` } : {}, signal: AbortSignal.timeout(timeoutMs) });
    await res.body?.cancel();
  } catch (err) {
    const cause = (err as { cause?: { code?: string } }).cause?.code ?? (err as Error).name;
    const why = cause === "TimeoutError" ? `no answer within ${timeoutMs / 1000} s` : cause;
    return `the model at ${baseUrl} cannot be reached (${why}): is it running, and is OPENAI_BASE_URL right?`;
  }
  if (res.status === 401 || res.status === 403) return `the model at ${baseUrl} refused OPENAI_API_KEY (HTTP ${res.status})`;
  return null;
}
