import { DuetError, isValidRoomId, serverNameProblem, serverUrlProblem, TOOL_RULES, workspaceOfRoom } from "@duet/shared";
import { z } from "zod";

/**
 * What a person gives when adding a tool server: its name, its address and the
 * headers it needs (an API key). Checked here, once, for the API and the room
 * routes; every refusal is a 400 naming the field.
 */

const invalid = (field: string, message: string) => new DuetError("invalid_request", "invalid request", { details: { [field]: [message] } });

export function serverNameOf(raw: string | undefined): string {
  if (!raw || serverNameProblem(raw)) throw invalid("name", TOOL_RULES.name);
  return raw;
}

export function workspaceOf(raw: string | undefined): string {
  // A workspace as its rooms name it (`slack-T123` for `slack-T123-C456`, `demo` for the CLI's room `demo`), never a channel's room.
  if (!raw || !isValidRoomId(raw) || workspaceOfRoom(raw) !== raw) throw invalid("workspace", "Workspace must be a platform and a workspace id, as room ids begin (e.g. slack-T123)");
  return raw;
}

export const roomToolSchema = z.strictObject({ userId: z.string().min(1).max(128).optional() });

/**
 * The server's address, or a 400: http(s) only, no credentials in it (they go in
 * headers, which are sealed), and, unless private addresses are allowed (local
 * fakes in tests and `pnpm dev`), https to a public host name or address.
 */
export function serverUrlOf(raw: string, allowPrivate: boolean): string {
  const problem = serverUrlProblem(raw);
  if (problem) throw invalid("url", problem);
  const url = new URL(raw);
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
