/**
 * Installations' tokens at rest: AES-GCM (256-bit) under a key derived from
 * DUET_STORE_KEY with HKDF, a fresh random 12-byte IV per value, and the
 * installation's store key as additional data, so a sealed value copied onto
 * another installation's row does not open there.
 */

/** Shorter secrets are refused: the key must carry at least 128 bits even if typed by hand. */
export const STORE_KEY_MIN_CHARS = 32;
const IV_BYTES = 12;
const INFO = new TextEncoder().encode("duet installations v1");

const keys = new Map<string, Promise<CryptoKey>>();

function aesKey(secret: string): Promise<CryptoKey> {
  let key = keys.get(secret);
  if (!key) {
    key = crypto.subtle
      .importKey("raw", new TextEncoder().encode(secret), "HKDF", false, ["deriveKey"])
      .then((base) =>
        crypto.subtle.deriveKey({ name: "HKDF", hash: "SHA-256", salt: new Uint8Array(32), info: INFO }, base, { name: "AES-GCM", length: 256 }, false, [
          "encrypt",
          "decrypt",
        ]),
      );
    keys.set(secret, key);
  }
  return key;
}

/** `iv || ciphertext+tag` of the UTF-8 text. */
export async function seal(secret: string, aad: string, plain: string): Promise<Uint8Array> {
  const iv = crypto.getRandomValues(new Uint8Array(IV_BYTES));
  const sealed = await crypto.subtle.encrypt(
    { name: "AES-GCM", iv, additionalData: new TextEncoder().encode(aad) },
    await aesKey(secret),
    new TextEncoder().encode(plain),
  );
  const out = new Uint8Array(IV_BYTES + sealed.byteLength);
  out.set(iv);
  out.set(new Uint8Array(sealed), IV_BYTES);
  return out;
}

/** The text `seal` was given; throws when the key or the additional data differ, or a byte was changed. */
export async function open(secret: string, aad: string, sealed: Uint8Array): Promise<string> {
  const plain = await crypto.subtle.decrypt(
    { name: "AES-GCM", iv: sealed.subarray(0, IV_BYTES), additionalData: new TextEncoder().encode(aad) },
    await aesKey(secret),
    sealed.subarray(IV_BYTES),
  );
  return new TextDecoder().decode(plain);
}
