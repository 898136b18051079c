import { streamText, type LanguageModel } from "ai";
import { DuetError } from "@duet/shared";
import type { ChatMessage } from "./provider.ts";

/**
 * How often the model request is retried after a 429, a 408/409 or a 5xx. The
 * SDK waits what the server's Retry-After (seconds or an HTTP date, or
 * retry-after-ms) asks when that is under a minute, else 2 s, 4 s, 8 s; every
 * wait stays inside the model deadline, which aborts it.
 */
export const MODEL_MAX_RETRIES = 3;

export interface ModelStreamOptions {
  /** Aborted when the room's turn is stopped: the request is cancelled and the abort reason thrown. */
  signal: AbortSignal;
  /** The deadline for the whole answer, retries included (MODEL_TIMEOUT_MS). */
  timeoutMs: number;
  maxTokens?: number;
  temperature?: number;
}

/**
 * The model's answer as text pieces, as they are written. A timeout becomes
 * 504 and a provider failure 502, each worded for the person waiting in chat;
 * a stop rethrows the stop signal's reason, so the caller can tell it apart.
 */
export async function* streamModelText(model: LanguageModel, messages: ChatMessage[], opts: ModelStreamOptions): AsyncGenerator<string, void> {
  const deadline = AbortSignal.timeout(opts.timeoutMs);
  const signal = AbortSignal.any([opts.signal, deadline]);
  const fail = (err: unknown): never => {
    if (opts.signal.aborted) throw opts.signal.reason;
    if (deadline.aborted) throw new DuetError("model_timeout", `the model did not answer within ${Math.round(opts.timeoutMs / 1000)} s`);
    if (err instanceof DuetError) throw err;
    throw new DuetError("model_error", `the model request failed: ${messageOf(err)}`.slice(0, 300));
  };
  const result = streamText({
    model,
    messages,
    abortSignal: signal,
    maxRetries: MODEL_MAX_RETRIES,
    maxOutputTokens: opts.maxTokens,
    temperature: opts.temperature,
    // Errors arrive as stream parts and are mapped below; the SDK's default logs each one.
    onError: () => undefined,
  });
  let wrote = false;
  try {
    for await (const part of result.fullStream) {
      if (part.type === "text-delta" && part.text) {
        wrote = true;
        yield part.text;
      } else if (part.type === "error") {
        fail(part.error);
      } else if (part.type === "abort") {
        fail(signal.reason);
      }
    }
  } catch (err) {
    fail(err);
  }
  if (signal.aborted) fail(signal.reason);
  if (!wrote) throw new DuetError("model_error", "the model returned an empty answer");
}

/** The provider's own words, without the SDK's retry preamble when there is a last error. */
function messageOf(err: unknown): string {
  const e = err as { lastError?: unknown; message?: string; statusCode?: number };
  if (e?.lastError) return messageOf(e.lastError);
  if (typeof e?.statusCode === "number") return `the model endpoint answered HTTP ${e.statusCode}`;
  return e?.message ?? String(err);
}
