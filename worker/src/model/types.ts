export interface ChatMessage {
  role: "system" | "user" | "assistant";
  content: string;
}

/** How the model writes: sent with every request, so no endpoint generates without limit. */
export interface GenerationSettings {
  maxTokens: number;
  temperature: number;
}

/** A model that turns a conversation into the assistant's next message. */
export interface ModelProvider {
  complete(messages: ChatMessage[], signal: AbortSignal): Promise<string>;
}
