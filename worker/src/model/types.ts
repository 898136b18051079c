export interface ChatMessage {
  role: "system" | "user" | "assistant";
  content: string;
}

/** How the model writes: sent with every request, so no endpoint generates without limit. */
export interface GenerationSettings {
  maxTokens: number;
  temperature: number;
}
