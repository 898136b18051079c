import { DuetError } from "@duet/shared";
import { sleep } from "../sleep.ts";
import { ModelRefusal, retryDelayMs } from "./retry.ts";
import type { ChatMessage, ChatModel, TokenUsage } from "./types.ts";

export interface ModelStreamOptions {
  /** Aborted when the room's turn is stopped: the request is cancelled and the abort reason thrown. */
  signal: AbortSignal;
  /** The deadline for the whole answer, retries included (MODEL_TIMEOUT_MS). */
  timeoutMs: number;
  /** Ask for the text as it is written (someone follows the turn) or whole. */
  stream: boolean;
  maxTokens?: number;
  temperature?: number;
  /** The provider's token counts for the request that answered (a refused attempt reports none). */
  onUsage?: (usage: TokenUsage) => void;
  onFinish?: (reason: string) => void;
}

/**
 * The model's answer as text pieces, as they are written. A request the
 * endpoint refuses with 408, 409, 429 or 5xx before any text is retried after
 * its Retry-After (or a short backoff), as long as the wait ends inside the
 * deadline; otherwise its error is reported at once rather than as a timeout.
 * A timeout becomes 504 and a provider failure 502, each worded for the person
 * waiting in chat; a stop rethrows the stop signal's reason.
 */
export async function* streamModelText(model: ChatModel, messages: ChatMessage[], opts: ModelStreamOptions): AsyncGenerator<string, void> {
  const deadlineAt = Date.now() + opts.timeoutMs;
  // Native timeout and any: measured cheaper per turn in workerd than a controller with setTimeout and clearTimeout.
  const deadline = AbortSignal.timeout(opts.timeoutMs);
  const signal = AbortSignal.any([opts.signal, deadline]);
  const fail = (err: unknown): never => {
    if (opts.signal.aborted) throw opts.signal.reason;
    if (deadline.aborted) throw new DuetError("model_timeout", `the model did not answer within ${Math.round(opts.timeoutMs / 1000)} s`);
    throw modelError(err, model.endpoint);
  };
  const request = { signal, stream: opts.stream, maxTokens: opts.maxTokens, temperature: opts.temperature, onUsage: opts.onUsage, onFinish: opts.onFinish };
  let wrote = false;
  for (let attempt = 0; ; attempt++) {
    let refused: unknown = null;
    try {
      const pieces = model.stream(messages, request);
      for await (const piece of model.endsOnAbort ? pieces : untilAborted(pieces, signal)) {
        wrote = true;
        yield piece;
      }
    } catch (err) {
      if (wrote || signal.aborted) fail(err);
      refused = err;
    }
    if (signal.aborted) fail(signal.reason);
    if (refused === null) break;
    const wait = retryDelayMs(refused, attempt);
    if (wait === null || Date.now() + wait >= deadlineAt) fail(refused);
    await sleep(wait!, signal).catch(() => fail(signal.reason));
  }
  if (!wrote) throw new DuetError("model_error", "the model returned an empty answer");
}

/** What went wrong, worded for chat; a request that failed says where it went (`endpoint`), so a wrong or down endpoint is plain. */
function modelError(err: unknown, endpoint: string | undefined): DuetError {
  if (err instanceof DuetError) return err;
  if (err instanceof ModelRefusal) {
    const retryAfterMs = err.status === 429 ? (retryDelayMs(err, 0) ?? undefined) : undefined;
    // The endpoint's own words stay in the log: a refusal's body may echo a key.
    console.warn(`model refusal: ${err.message}`);
    return new DuetError("model_error", `the model endpoint answered HTTP ${err.status}`, { retryAfterMs });
  }
  const where = endpoint ? ` to ${endpoint}` : "";
  return new DuetError("model_error", `the model request${where} failed: ${(err as Error)?.message ?? String(err)}`.slice(0, 300));
}

/**
 * `source`, ending with the signal's reason as soon as it is aborted: a
 * provider that ignores the signal (a binding call that never settles) cannot
 * hold the turn past its deadline or its stop. A provider whose request ends
 * on abort (`endsOnAbort`) needs no watch: the race per piece is skipped.
 */
async function* untilAborted<T>(source: AsyncIterable<T>, signal: AbortSignal): AsyncGenerator<T, void> {
  const it = source[Symbol.asyncIterator]();
  let onAbort!: () => void;
  const aborted = new Promise<never>((_, reject) => {
    onAbort = () => reject(signal.reason);
    if (signal.aborted) onAbort();
    else signal.addEventListener("abort", onAbort, { once: true });
  });
  aborted.catch(() => undefined);
  try {
    for (;;) {
      const next = await Promise.race([it.next(), aborted]);
      if (next.done) return;
      yield next.value;
    }
  } finally {
    signal.removeEventListener("abort", onAbort);
    void it.return?.()?.catch?.(() => undefined);
  }
}
