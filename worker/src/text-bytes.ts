/**
 * Text measured in UTF-8 bytes, as storage and the model's context count it.
 * Used by the prompt (model/) and by command output (turns/), so it sits below both.
 */

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** Keeps at most `maxBytes` of UTF-8 text; says whether anything was cut. */
export function capBytes(text: string, maxBytes: number): { text: string; cut: boolean } {
  // Fast path: a string of n UTF-16 units is at most 3n bytes.
  if (text.length * 3 <= maxBytes) return { text, cut: false };
  const bytes = encoder.encode(text);
  if (bytes.length <= maxBytes) return { text, cut: false };
  // A cut through a multi-byte character decodes to U+FFFD; drop it.
  return { text: decoder.decode(bytes.subarray(0, maxBytes)).replace(/\uFFFD$/, ""), cut: true };
}
