/**
 * GitHub's webhook signature: `X-Hub-Signature-256: sha256=<hex>`, the
 * HMAC-SHA256 of the raw body under the webhook's secret. Checked with
 * WebCrypto's `verify`, which compares in constant time (no early exit on
 * the first differing byte), so the answer's timing tells a caller nothing
 * about the right signature.
 */

const PREFIX = "sha256=";

/** Hex of 64 characters, or null for anything else (wrong length, not hex). */
function hexBytes(hex: string): Uint8Array<ArrayBuffer> | null {
  if (!/^[0-9a-fA-F]{64}$/.test(hex)) return null;
  const out = new Uint8Array(32);
  for (let i = 0; i < 32; i++) out[i] = parseInt(hex.slice(i * 2, i * 2 + 2), 16);
  return out;
}

/** True only when `header` is the body's HMAC-SHA256 under `secret`; a missing or malformed header is false. */
export async function signatureMatches(secret: string, body: Uint8Array<ArrayBuffer>, header: string | null | undefined): Promise<boolean> {
  if (!header?.startsWith(PREFIX)) return false;
  const given = hexBytes(header.slice(PREFIX.length).trim());
  if (!given) return false;
  const key = await crypto.subtle.importKey("raw", new TextEncoder().encode(secret), { name: "HMAC", hash: "SHA-256" }, false, ["verify"]);
  return crypto.subtle.verify("HMAC", key, given, body);
}
