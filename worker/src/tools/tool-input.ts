import { DuetError } from "@duet/shared";
import { z } from "zod";

/**
 * What a person gives when adding a tool server: its name, its address and the
 * headers it needs (an API key). Checked here, once, for the API and the room
 * routes; every refusal is a 400 naming the field.
 */

/** Lower-case so `server.tool` reads the same in every chat; no dot, which separates server from tool. */
export const SERVER_NAME = /^[a-z0-9][a-z0-9_-]{0,31}$/;
export const SERVER_URL_MAX_CHARS = 2000;
export const HEADERS_MAX = 20;
export const HEADER_VALUE_MAX_CHARS = 4096;
/** A workspace as room ids name it (`slack-T123`, `cli-acme`): see workspaceOfRoom. */
export const WORKSPACE = /^[A-Za-z0-9._]{1,40}-[A-Za-z0-9._]{1,100}$/;
const HEADER_NAME = /^[A-Za-z0-9!#$%&'*+.^_`|~-]{1,64}$/;
/** Headers Duet sets itself for the protocol, or that fetch owns. */
const RESERVED_HEADERS = new Set(["host", "content-type", "content-length", "accept", "mcp-session-id", "mcp-protocol-version", "connection", "transfer-encoding"]);

const invalid = (field: string, message: string) => new DuetError("invalid_request", "invalid request", { details: { [field]: [message] } });

export function serverNameOf(raw: string | undefined): string {
  if (!raw || !SERVER_NAME.test(raw)) throw invalid("name", "Server name must be 1-32 characters of a-z, 0-9, '_' or '-', starting with a letter or digit");
  return raw;
}

export function workspaceOf(raw: string | undefined): string {
  if (!raw || !WORKSPACE.test(raw)) throw invalid("workspace", "Workspace must be a platform and a workspace id, as room ids begin (e.g. slack-T123)");
  return raw;
}

export const putServerSchema = z.strictObject({
  url: z.string().min(1, "URL must not be empty").max(SERVER_URL_MAX_CHARS, `URL must be at most ${SERVER_URL_MAX_CHARS} characters`),
  headers: z
    .record(
      z.string().regex(HEADER_NAME, "Header names must be 1-64 characters of a token (letters, digits, '-')"),
      z
        .string()
        .max(HEADER_VALUE_MAX_CHARS, `Header values must be at most ${HEADER_VALUE_MAX_CHARS} characters`)
        .refine((v) => !/[\r\n\0]/.test(v), "Header values must be one line"),
    )
    .refine((h) => Object.keys(h).length <= HEADERS_MAX, `At most ${HEADERS_MAX} headers`)
    .refine((h) => !Object.keys(h).some((k) => RESERVED_HEADERS.has(k.toLowerCase())), "Duet sets content-type, accept and the MCP headers itself")
    .optional(),
  userId: z.string().min(1).max(128).optional(),
});
export type PutServer = z.infer<typeof putServerSchema>;

export const roomToolSchema = z.strictObject({ userId: z.string().min(1).max(128).optional() });

/**
 * The server's address, or a 400: http(s) only, no credentials in it (they go in
 * headers, which are sealed), and, unless private addresses are allowed (local
 * fakes in tests and `pnpm dev`), https to a public host name or address.
 */
export function serverUrlOf(raw: string, allowPrivate: boolean): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw invalid("url", "URL must be an absolute http(s) address, e.g. https://mcp.example.com/mcp");
  }
  if (url.protocol !== "https:" && url.protocol !== "http:") throw invalid("url", "URL must be http(s)");
  if (url.username || url.password) throw invalid("url", "URL must not carry credentials: put them in headers, which Duet keeps sealed");
  if (!allowPrivate) {
    if (url.protocol !== "https:") throw invalid("url", "URL must be https");
    if (isPrivateHost(url.hostname)) throw invalid("url", `${url.hostname} is a private or local address, which Duet does not call`);
  }
  url.hash = "";
  return url.toString();
}

/**
 * Loopback, private, link-local, carrier-grade NAT and unspecified addresses,
 * `localhost` and names with no dot (which resolve only inside a network).
 * A public name that resolves to a private address is not caught here; a
 * deployed Worker's fetch does not reach private networks.
 */
export function isPrivateHost(hostname: string): boolean {
  const host = hostname.toLowerCase().replace(/^\[|\]$/g, "").replace(/\.$/, "");
  if (host === "localhost" || host.endsWith(".localhost") || host.endsWith(".local") || host.endsWith(".internal")) return true;
  const v4 = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(host);
  if (v4) {
    const [a, b] = [Number(v4[1]), Number(v4[2])];
    return a === 0 || a === 10 || a === 127 || (a === 100 && b >= 64 && b <= 127) || (a === 169 && b === 254) || (a === 172 && b >= 16 && b <= 31) || (a === 192 && b === 168) || a >= 224;
  }
  if (host.includes(":")) {
    if (host === "::" || host === "::1") return true;
    if (/^f[cd]/.test(host) || /^fe[89ab]/.test(host)) return true;
    // An IPv4 address written as IPv6 (::ffff:10.0.0.1 or its hex form) is as private as the address.
    const mapped = /^::ffff:(.+)$/.exec(host);
    if (mapped) return mapped[1].includes(".") ? isPrivateHost(mapped[1]) : true;
    return false;
  }
  return !host.includes(".");
}
