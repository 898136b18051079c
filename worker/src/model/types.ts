export interface ChatMessage {
  role: "system" | "user" | "assistant";
  content: string;
}

/** How the model writes: sent with every request, so no endpoint generates without limit. */
export interface GenerationSettings {
  maxTokens: number;
  temperature: number;
}

/** What one request to the model needs besides the chat. */
export interface ModelRequest {
  signal: AbortSignal;
  /**
   * Whether the text is wanted as it is written (someone follows the turn
   * live). Otherwise the answer is asked for whole: one JSON body instead of
   * an event per token, which costs both ends less.
   */
  stream: boolean;
  maxTokens?: number;
  temperature?: number;
  /** Called with the provider's own token counts for this request, when it reports them. */
  onUsage?: (usage: TokenUsage) => void;
  /** Called with why the model stopped writing (`stop`, `length`, …), when the provider says (for the turn's trace). */
  onFinish?: (reason: string) => void;
}

/** Tokens one model request took in (the prompt) and gave out (the answer), as the provider counted them. */
export interface TokenUsage {
  inputTokens: number;
  outputTokens: number;
}

/**
 * A configured model: one request, its answer as text pieces as they are
 * written (one piece when the request did not ask to stream). A refusal a retry may fix is thrown as a ModelRefusal; the retry and
 * the deadline are the caller's (streamModelText).
 */
export interface ChatModel {
  /** The model's name as people choose it (DUET_MODELS; what usage is counted under). */
  readonly name: string;
  /** Where the model is asked, for the person told that a request failed: a host, or the provider; never a key. */
  readonly endpoint?: string;
  stream(messages: ChatMessage[], request: ModelRequest): AsyncIterable<string>;
  /** True when an aborted `request.signal` ends the answer (a fetch does, headers and body alike); otherwise the caller watches the signal. */
  readonly endsOnAbort?: boolean;
}
