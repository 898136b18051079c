/**
 * The GitHub App's own credential: a JWT signed RS256 with the App's private
 * key, which GitHub accepts for at most 10 minutes and only on /app routes
 * (minting installation tokens). Written on WebCrypto rather than taken from
 * @octokit/auth-app: that package is not among the workspace's dependencies,
 * and pulls a request stack and an LRU cache the Worker does not need for one
 * signature and one POST; WebCrypto is what it uses on Workers anyway.
 */

/** GitHub's limit on a JWT's life is 10 minutes; `iat` is set back this far against clock drift. */
export const JWT_BACKDATE_S = 60;
export const JWT_LIFETIME_S = 10 * 60;

const PKCS8_HEADER = "-----BEGIN PRIVATE KEY-----";
const PKCS1_HEADER = "-----BEGIN RSA PRIVATE KEY-----";

/** rsaEncryption's AlgorithmIdentifier (OID 1.2.840.113549.1.1.1, NULL parameters), DER. */
const RSA_ALGORITHM_ID = [0x30, 0x0d, 0x06, 0x09, 0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x01, 0x01, 0x05, 0x00];

/**
 * Reads GITHUB_APP_PRIVATE_KEY: PEM, PKCS#8 ("BEGIN PRIVATE KEY") or the
 * PKCS#1 GitHub hands out ("BEGIN RSA PRIVATE KEY"), which WebCrypto cannot
 * import and is wrapped in a PKCS#8 envelope here. Literal `\n` (a key put on
 * one line of an env file) is read as a line break. Throws one line naming
 * the variable when the text is no such key.
 */
export async function importAppKey(pem: string): Promise<CryptoKey> {
  const text = pem.replace(/\\n/g, "\n").trim();
  const pkcs1 = text.startsWith(PKCS1_HEADER);
  if (!pkcs1 && !text.startsWith(PKCS8_HEADER)) {
    throw new Error('GITHUB_APP_PRIVATE_KEY must be a PEM private key ("BEGIN PRIVATE KEY" or "BEGIN RSA PRIVATE KEY")');
  }
  let der: Uint8Array<ArrayBuffer>;
  try {
    der = fromBase64(text.replace(/-----[A-Z ]+-----/g, "").replace(/\s+/g, ""));
  } catch {
    throw new Error("GITHUB_APP_PRIVATE_KEY is not valid PEM (its body is not base64)");
  }
  try {
    return await crypto.subtle.importKey("pkcs8", pkcs1 ? wrapPkcs1(der) : der, { name: "RSASSA-PKCS1-v1_5", hash: "SHA-256" }, false, ["sign"]);
  } catch {
    throw new Error("GITHUB_APP_PRIVATE_KEY could not be read as an RSA private key");
  }
}

/** The App's JWT at `nowMs`: `iat` a minute back, `exp` at most 10 minutes after `iat`, `iss` the App's id. */
export async function appJwt(key: CryptoKey, appId: string, nowMs: number): Promise<string> {
  const iat = Math.floor(nowMs / 1000) - JWT_BACKDATE_S;
  const header = base64url(new TextEncoder().encode(JSON.stringify({ alg: "RS256", typ: "JWT" })));
  const claims = base64url(new TextEncoder().encode(JSON.stringify({ iat, exp: iat + JWT_LIFETIME_S, iss: appId })));
  const signed = `${header}.${claims}`;
  const signature = await crypto.subtle.sign("RSASSA-PKCS1-v1_5", key, new TextEncoder().encode(signed));
  return `${signed}.${base64url(new Uint8Array(signature))}`;
}

/** PrivateKeyInfo { version 0, rsaEncryption, OCTET STRING pkcs1 } (RFC 5208), DER. */
function wrapPkcs1(pkcs1: Uint8Array): Uint8Array<ArrayBuffer> {
  const body = [0x02, 0x01, 0x00, ...RSA_ALGORITHM_ID, 0x04, ...derLength(pkcs1.length)];
  const inner = new Uint8Array(body.length + pkcs1.length);
  inner.set(body);
  inner.set(pkcs1, body.length);
  const head = [0x30, ...derLength(inner.length)];
  const out = new Uint8Array(head.length + inner.length);
  out.set(head);
  out.set(inner, head.length);
  return out;
}

/** A DER length: one byte below 128, else 0x80 | the count of big-endian bytes that follow. */
function derLength(n: number): number[] {
  if (n < 0x80) return [n];
  const bytes: number[] = [];
  for (let v = n; v > 0; v = Math.floor(v / 256)) bytes.unshift(v % 256);
  return [0x80 | bytes.length, ...bytes];
}

function fromBase64(b64: string): Uint8Array<ArrayBuffer> {
  const bin = atob(b64);
  const out = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
  return out;
}

export function base64url(bytes: Uint8Array): string {
  let bin = "";
  for (const b of bytes) bin += String.fromCharCode(b);
  return btoa(bin).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}
