import { z } from "zod";
import { isValidRoomId } from "./room-id.ts";

/**
 * The wire of `/api/tools/:workspace` and `/api/rooms/:roomId/tools`, and the
 * rules a tool server's name, address and headers follow: checked by the
 * Worker's routes and, with the same words, by every front end before it asks.
 */

/** Lower-case so `server.tool` reads the same in every chat; no dot, which separates server from tool. */
export const SERVER_NAME = /^[a-z0-9][a-z0-9_-]{0,31}$/;
export const SERVER_NAME_MAX_CHARS = 32;
export const SERVER_URL_MAX_CHARS = 2000;
export const HEADERS_MAX = 20;
export const HEADER_VALUE_MAX_CHARS = 4096;
/** An HTTP token (RFC 9110), short enough for a chat line. */
export const HEADER_NAME = /^[A-Za-z0-9!#$%&'*+.^_`|~-]{1,64}$/;
/** Headers Duet sets itself for the protocol, or that fetch owns. */
const RESERVED_HEADERS = new Set(["host", "content-type", "content-length", "accept", "mcp-session-id", "mcp-protocol-version", "connection", "transfer-encoding"]);

export const TOOL_RULES = {
  name: `Server name must be 1-${SERVER_NAME_MAX_CHARS} characters of a-z, 0-9, '_' or '-', starting with a letter or digit`,
  url: "URL must be an absolute http(s) address, e.g. https://mcp.example.com/mcp",
  urlLength: `URL must be at most ${SERVER_URL_MAX_CHARS} characters`,
  urlCredentials: "URL must not carry credentials: put them in headers, which Duet keeps sealed",
  headerName: "Header names must be 1-64 characters of a token (letters, digits, '-')",
  headerValue: `Header values must be one line of at most ${HEADER_VALUE_MAX_CHARS} characters`,
  headersMax: `At most ${HEADERS_MAX} headers`,
  reserved: "Duet sets content-type, accept and the MCP headers itself",
} as const;

export function serverNameProblem(name: string): string | null {
  return SERVER_NAME.test(name) ? null : TOOL_RULES.name;
}

/** Why `raw` is no address a tool server may have, whatever the deployment; null when it may be one. Private hosts are the Worker's call. */
export function serverUrlProblem(raw: string): string | null {
  if (raw.length > SERVER_URL_MAX_CHARS) return TOOL_RULES.urlLength;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return TOOL_RULES.url;
  }
  if (url.protocol !== "https:" && url.protocol !== "http:") return TOOL_RULES.url;
  if (url.username || url.password) return TOOL_RULES.urlCredentials;
  return null;
}

export function headerProblem(name: string, value: string): string | null {
  if (!HEADER_NAME.test(name)) return TOOL_RULES.headerName;
  if (RESERVED_HEADERS.has(name.toLowerCase())) return TOOL_RULES.reserved;
  if (value.length > HEADER_VALUE_MAX_CHARS || /[\r\n\0]/.test(value)) return TOOL_RULES.headerValue;
  return null;
}

/** A room of the workspace whose audit records a server's adding or removal. */
const auditRoomField = z.string().refine(isValidRoomId, "Room id must be 1-200 characters of A-Z, a-z, 0-9, '.', '_' or '-'").optional();

/** `GET /api/tools/:workspace`'s query: who is looking (the person who added a server that needs OAuth is given its link). */
export const listToolServersQuerySchema = z.strictObject({ userId: z.string().min(1).max(128).optional() });

/** `DELETE /api/tools/:workspace/:name`'s query: who removed it, from which room (whose audit records it). */
export const removeToolServerQuerySchema = z.object({ userId: z.string().min(1).max(128).optional(), roomId: auditRoomField });
export type RemoveToolServerQuery = z.infer<typeof removeToolServerQuerySchema>;

export const putToolServerSchema = z.strictObject({
  url: z.string().min(1, "URL must not be empty").max(SERVER_URL_MAX_CHARS, TOOL_RULES.urlLength),
  headers: z
    .record(
      z.string().regex(HEADER_NAME, TOOL_RULES.headerName),
      z
        .string()
        .max(HEADER_VALUE_MAX_CHARS, TOOL_RULES.headerValue)
        .refine((v) => !/[\r\n\0]/.test(v), TOOL_RULES.headerValue),
    )
    .refine((h) => Object.keys(h).length <= HEADERS_MAX, TOOL_RULES.headersMax)
    .refine((h) => !Object.keys(h).some((k) => RESERVED_HEADERS.has(k.toLowerCase())), TOOL_RULES.reserved)
    .optional(),
  userId: z.string().min(1).max(128).optional(),
  /** The room it was added from, in the same workspace: that room's audit records who added it. */
  roomId: auditRoomField,
});
export type PutToolServer = z.infer<typeof putToolServerSchema>;

/** A tool as the API lists it. */
export const toolViewSchema = z.object({ name: z.string(), description: z.string().optional(), readOnly: z.boolean() });

/** A server as listed: never its headers' values, only their names. */
export const toolServerViewSchema = z.object({
  name: z.string(),
  url: z.string(),
  headers: z.array(z.string()),
  addedBy: z.string().nullable(),
  addedAt: z.number(),
});
export type ToolServerView = z.infer<typeof toolServerViewSchema>;

/**
 * A server as listed with its tools; one that asks for OAuth and has no
 * working token says so (`needsAuthorization`), and to the person who added
 * it, and only them, carries the link that authorizes it.
 */
export const toolServerListingSchema = toolServerViewSchema.extend({
  tools: z.array(toolViewSchema),
  error: z.string().optional(),
  needsAuthorization: z.boolean().optional(),
  authorizeUrl: z.string().optional(),
});
export type ToolServerListing = z.infer<typeof toolServerListingSchema>;

export const toolServersResponseSchema = z.object({ servers: z.array(toolServerListingSchema) });
/** A server just added; `authorize` when it asks for OAuth: the link for the person who added it, or why Duet cannot authorize with it. */
export const toolServerPutResponseSchema = z.object({
  server: toolServerViewSchema,
  created: z.boolean(),
  authorize: z.object({ url: z.string().optional(), problem: z.string().optional() }).optional(),
});
export const toolServerDeleteResponseSchema = z.object({ deleted: z.boolean() });
/** The servers of `workspace` that a room turned on. */
export const roomToolsResponseSchema = z.object({ workspace: z.string(), tools: z.array(z.string()) });
export type RoomToolsResponse = z.infer<typeof roomToolsResponseSchema>;
