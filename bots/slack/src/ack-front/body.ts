import { parse } from "node:querystring";

/**
 * Reading a form body as bolt's HTTP receiver reads it
 * (HTTPModuleFunctions.parseHTTPRequestBody): an interaction is the JSON in
 * its one `payload` field, anything else (a slash command) is the fields
 * themselves, as node:querystring gives them. Both threads read a handed-over
 * request with it: the front to decide what it is, the main thread to give
 * bolt the very body its receiver would have.
 */

export const FORM = "application/x-www-form-urlencoded";

/** The body bolt would process; throws where bolt answers 400 (a `payload` that is not JSON). */
export function formBody(text: string): Record<string, unknown> {
  const fields = parse(text);
  const { payload } = fields;
  return typeof payload === "string" ? (JSON.parse(payload) as Record<string, unknown>) : fields;
}

/**
 * A signed form body the front hands over, named for the log ("/duet",
 * "block_actions"): a slash command (a `command` field) or an interaction (a
 * `payload` of JSON), both answered with what their ack says. Undefined for
 * the rest, which bolt answers itself: Slack's ssl_check, a body bolt cannot
 * read (400), a url_verification in form dress, fields without a command.
 */
export function handedRequest(text: string): string | undefined {
  const fields = parse(text);
  if (fields.ssl_check === "1") return undefined;
  if (typeof fields.payload === "string") {
    let payload: unknown;
    try {
      payload = JSON.parse(fields.payload);
    } catch {
      return undefined;
    }
    if (typeof payload !== "object" || payload === null) return undefined;
    const { type, ssl_check } = payload as { type?: unknown; ssl_check?: unknown };
    if (type === "url_verification" || ssl_check === "1") return undefined;
    return typeof type === "string" ? type : "interaction";
  }
  return typeof fields.command === "string" && fields.type !== "url_verification" ? fields.command : undefined;
}
