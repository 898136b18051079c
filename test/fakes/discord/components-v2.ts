import { DiscordApiError } from "./errors.ts";

/**
 * Discord's rules for a message's components, V2 (the IS_COMPONENTS_V2 flag)
 * and classic, as the API enforces them, so a bot that breaks one fails its
 * tests with the 400 Discord would answer:
 * - classic: up to 5 action rows of 1 to 5 buttons; V2 types need the flag;
 * - V2: no content or embeds; top-level action rows, text displays,
 *   separators, files and containers; a container holds up to 10 of those
 *   (no container); at most 40 components counted through containers and
 *   rows; at most 4,000 characters across the text displays; a file shows an
 *   `attachment://name` the message carries;
 * - everywhere: button custom ids of 1-100 characters, unique in the message,
 *   labels of at most 80; an unknown type is refused.
 * And what people see of it: `shownText` and `shownButtons`.
 */

export const IS_COMPONENTS_V2 = 1 << 15;
export const V2_MAX_COMPONENTS = 40;
export const V2_MAX_TEXT = 4_000;
export const CONTAINER_MAX_CHILDREN = 10;

const ROW = 1;
const BUTTON = 2;
const TEXT_DISPLAY = 10;
const FILE = 13;
const SEPARATOR = 14;
const CONTAINER = 17;
const V2_TOP_LEVEL = [ROW, TEXT_DISPLAY, FILE, SEPARATOR, CONTAINER];
const IN_CONTAINER = [ROW, TEXT_DISPLAY, FILE, SEPARATOR];

export function formError(field: string, code: string, message: string): DiscordApiError {
  return new DiscordApiError(400, 50035, "Invalid Form Body", { [field]: { _errors: [{ code, message }] } });
}

const typeError = (allowed: number[]) => formError("components", "UNION_TYPE_CHOICES", `Value of field "type" must be one of (${allowed.join(", ")}).`);

/** Whether `flags` (a number, or absent) carry IS_COMPONENTS_V2. */
export const hasV2Flag = (flags: unknown) => typeof flags === "number" && (flags & IS_COMPONENTS_V2) !== 0;

/**
 * The flag an edit leaves on a message that has `before`: absent flags keep
 * it; V2 cannot be removed; a classic message becomes V2 only when the edit
 * clears its content and embeds (null or empty), as Discord asks.
 */
export function v2AfterEdit(before: { flags?: unknown; content?: unknown }, body: any): boolean {
  const was = hasV2Flag(before.flags);
  if (body?.flags === undefined || body?.flags === null) return was;
  const now = hasV2Flag(body.flags);
  if (was && !now) throw formError("flags", "MESSAGE_CANNOT_REMOVE_COMPONENTS_V2_FLAG", "The IS_COMPONENTS_V2 flag cannot be removed from a message.");
  if (!was && now && typeof before.content === "string" && before.content !== "" && !cleared(body.content)) {
    throw formError("content", "MESSAGE_CANNOT_USE_LEGACY_FIELDS_WITH_COMPONENTS_V2", "Set content to null to make a message use components V2.");
  }
  return now;
}

const cleared = (v: unknown) => v === null || v === "";

/** Checks a message's `components` (V2 or classic) and, for V2, that it carries no content or embeds; `attachments`: the file names it carries. */
export function validateComponentsOf(body: any, v2: boolean, attachments: string[]): void {
  if (v2) {
    if (!cleared(body?.content ?? null)) throw formError("content", "MESSAGE_CANNOT_USE_LEGACY_FIELDS_WITH_COMPONENTS_V2", "The 'content' field cannot be used when using MessageFlags.IS_COMPONENTS_V2");
    if (Array.isArray(body?.embeds) && body.embeds.length > 0) throw formError("embeds", "MESSAGE_CANNOT_USE_LEGACY_FIELDS_WITH_COMPONENTS_V2", "The 'embeds' field cannot be used when using MessageFlags.IS_COMPONENTS_V2");
  }
  const components = body?.components;
  if (components === undefined || components === null) return;
  if (!Array.isArray(components)) throw formError("components", "BASE_TYPE_ARRAY", "Must be an array.");
  if (!v2 && components.length > 5) throw formError("components", "BASE_TYPE_MAX_LENGTH", "Must be 5 or fewer in length.");
  const seen = { count: 0, text: 0, ids: new Set<string>() };
  for (const c of components) {
    if (!v2 && c?.type !== ROW) throw typeError([ROW]);
    checkComponent(c, V2_TOP_LEVEL, seen, attachments);
  }
  if (seen.count > V2_MAX_COMPONENTS) throw formError("components", "BASE_TYPE_MAX_LENGTH", `A message holds ${V2_MAX_COMPONENTS} or fewer components.`);
  if (seen.text > V2_MAX_TEXT) throw formError("components", "BASE_TYPE_MAX_LENGTH", `The text of a message's components must be ${V2_MAX_TEXT} or fewer in length.`);
}

function checkComponent(c: any, allowed: number[], seen: { count: number; text: number; ids: Set<string> }, attachments: string[]): void {
  if (!allowed.includes(c?.type)) throw typeError(allowed);
  seen.count++;
  switch (c.type) {
    case CONTAINER: {
      if (!Array.isArray(c.components) || c.components.length < 1 || c.components.length > CONTAINER_MAX_CHILDREN) {
        throw formError("components", "BASE_TYPE_BAD_LENGTH", `A container holds 1 to ${CONTAINER_MAX_CHILDREN} components.`);
      }
      for (const child of c.components) checkComponent(child, IN_CONTAINER, seen, attachments);
      return;
    }
    case ROW: {
      if (!Array.isArray(c.components) || c.components.length === 0 || c.components.length > 5) {
        throw formError("components", "COMPONENT_LAYOUT_WIDTH_EXCEEDED", "An action row holds 1 to 5 components.");
      }
      for (const b of c.components) checkButton(b, seen);
      return;
    }
    case TEXT_DISPLAY:
      if (typeof c.content !== "string" || c.content.length === 0) throw formError("components", "BASE_TYPE_REQUIRED", "A text display needs its content.");
      seen.text += c.content.length;
      return;
    case SEPARATOR:
      if (c.spacing !== undefined && c.spacing !== 1 && c.spacing !== 2) throw formError("components", "BASE_TYPE_CHOICES", "Value must be one of (1, 2).");
      return;
    case FILE: {
      const name = /^attachment:\/\/(.+)$/.exec(String(c.file?.url ?? ""))?.[1];
      if (!name || !attachments.includes(name)) throw formError("components", "UNFURLED_MEDIA_ITEM_ATTACHMENT_NOT_FOUND", "A file component must show an attachment of the message.");
      return;
    }
  }
}

function checkButton(b: any, seen: { count: number; ids: Set<string> }): void {
  const id = b?.custom_id;
  if (b?.type !== BUTTON || typeof id !== "string" || id.length < 1 || id.length > 100 || seen.ids.has(id)) {
    throw formError("components", "COMPONENT_CUSTOM_ID_INVALID", "Each button needs a unique custom_id of 1 to 100 characters.");
  }
  if (typeof b.label === "string" && b.label.length > 80) throw formError("components", "BASE_TYPE_MAX_LENGTH", "Labels must be 80 or fewer in length.");
  seen.ids.add(id);
  seen.count++;
}

const walk = (components: unknown, visit: (c: { type?: number; content?: string; custom_id?: string }) => void) => {
  for (const c of Array.isArray(components) ? components : []) {
    visit(c);
    walk((c as { components?: unknown }).components, visit);
  }
};

/** The text a message shows: its content, or (V2) its text displays in order, a line apart. */
export function shownText(msg: Record<string, unknown>): string {
  if (!hasV2Flag(msg.flags)) return typeof msg.content === "string" ? msg.content : "";
  const texts: string[] = [];
  walk(msg.components, (c) => c.type === TEXT_DISPLAY && typeof c.content === "string" && texts.push(c.content));
  return texts.join("\n");
}

/** The custom ids of the buttons a message shows, in its rows or inside its containers. */
export function shownButtons(msg: Record<string, unknown>): string[] {
  const ids: string[] = [];
  walk(msg.components, (c) => c.type === BUTTON && c.custom_id && ids.push(c.custom_id));
  return ids;
}
