import { sandboxName } from "@duet/shared";

/** @cloudflare/sandbox refuses ids over 63 characters: they become DNS labels (preview URLs). */
const MAX_ID_CHARS = 63;
const READABLE_PREFIX_CHARS = 20;
const DIGEST_HEX_CHARS = 24;

/**
 * The @cloudflare/sandbox id for a room. A room id may be 200 characters of
 * mixed case with dots and underscores (a Discord thread room is 67), while a
 * sandbox id must be a DNS label: at most 63 characters, no hyphen at either end,
 * and lower case (the SDK warns on upper case, as hostnames ignore it). Rooms
 * whose `sandbox-<roomId>` already is one keep it; the rest get a readable
 * prefix plus a SHA-256 digest of the whole room id, so distinct rooms never
 * share a container ("Demo" and "demo" included).
 */
export async function containerId(roomId: string): Promise<string> {
  const plain = sandboxName(roomId);
  if (plain.length <= MAX_ID_CHARS && /^[a-z0-9-]*[a-z0-9]$/.test(plain)) return plain;
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(roomId)));
  const hex = [...digest].map((b) => b.toString(16).padStart(2, "0")).join("").slice(0, DIGEST_HEX_CHARS);
  const readable = roomId.toLowerCase().replace(/[^a-z0-9]+/g, "-").slice(0, READABLE_PREFIX_CHARS).replace(/-+$/, "");
  return `sandbox-${readable ? `${readable}-` : ""}${hex}`;
}
