import { z } from "zod";
import { sanitizeChatText } from "../text/sanitize.ts";
import { plainHttpUrl } from "./http-url.ts";
import { TEXT_MAX_CHARS, USER_NAME_MAX_CHARS } from "./limits.ts";

/**
 * The wire of `/api/rooms/:roomId/asked/:key`: the message an "Ask Duet" form
 * is open on (its author, text and file names, as the platform showed them
 * with the command, and where a file can be fetched from when the platform
 * gives that only with the command), kept in the message's room until the
 * form is submitted, so a bot restarted meanwhile still has it.
 */

/** How long a kept message waits for its form: as long as the platform's interaction lives (Discord's 15 minutes). */
export const ASKED_KEEP_MS = 15 * 60_000;
/** Open forms one room keeps at once; the oldest goes first. */
export const ASKED_PER_ROOM = 200;
/** File names kept (and quoted) with a message: a Discord message carries at most 10 attachments. */
export const QUOTED_FILES_MAX = 10;
/** Longest file name kept with a message (Linux's NAME_MAX). */
export const QUOTED_FILE_NAME_MAX_CHARS = 255;

/** Longest file URL kept (a signed CDN URL is some 200 characters). */
export const QUOTED_FILE_URL_MAX_CHARS = 2_048;
/** Largest size a kept file may declare: the bot's own file limit refuses far smaller ones, this only bounds the number. */
const QUOTED_FILE_MAX_BYTES = 2 ** 40;

/** A kept message's key: the bot's own (a person and a message), safe in a URL path. */
export const ASKED_KEY_PATTERN = /^[A-Za-z0-9_-]{1,128}$/;
export const ASKED_KEY_RULE = "Key must be 1-128 characters of A-Z, a-z, 0-9, '_' or '-'";

const fileName = z
  .string({ error: "Each file name must be a string" })
  .transform((n) => sanitizeChatText(n).replace(/\s+/g, " "))
  .refine((n) => n.length > 0, "A file name cannot be empty")
  .refine((n) => n.length <= QUOTED_FILE_NAME_MAX_CHARS, `Each file name must be at most ${QUOTED_FILE_NAME_MAX_CHARS} characters`);

/**
 * A file shared with the message, as the bot fetches it at submit: its name,
 * declared size and URL. Which hosts a URL may be on is the bot's to say (the
 * platform's file hosts, checked again on every fetch and redirect); the room
 * keeps only an http(s) URL without credentials.
 */
const askedAttachmentSchema = z.object(
  {
    name: fileName,
    size: z.number({ error: "Each file's size must be a number" }).int("Each file's size must be a whole number of bytes").min(0, "Each file's size cannot be negative").max(QUOTED_FILE_MAX_BYTES, "Each file's size is past any file Duet takes"),
    url: z
      .string({ error: "Each file's URL must be a string" })
      .max(QUOTED_FILE_URL_MAX_CHARS, `Each file's URL must be at most ${QUOTED_FILE_URL_MAX_CHARS} characters`)
      .refine((raw) => plainHttpUrl(raw) !== null, "Each file's URL must be an http(s) URL without credentials"),
  },
  { error: "Each file must be an object with name, size and url" },
);
export type QuotedAttachment = z.infer<typeof askedAttachmentSchema>;

export const askedMessageSchema = z.object({
  author: z
    .string({ error: "Author must be a string" })
    .transform((n) => sanitizeChatText(n).replace(/\s+/g, " "))
    .refine((n) => n.length > 0, "Author cannot be empty: name who wrote the message")
    .refine((n) => n.length <= USER_NAME_MAX_CHARS, `Author must be at most ${USER_NAME_MAX_CHARS} characters`),
  // Control and zero-width characters are removed first: text that is only those is empty.
  text: z
    .string({ error: "Text must be a string" })
    .transform(sanitizeChatText)
    .refine((t) => t.length > 0, "Text cannot be empty: a message without text is not asked about")
    .refine((t) => t.length <= TEXT_MAX_CHARS, `Text must be at most ${TEXT_MAX_CHARS} characters`),
  files: z
    .array(fileName, { error: "Files must be a list of file names" })
    .max(QUOTED_FILES_MAX, `Files must name at most ${QUOTED_FILES_MAX} files`)
    .optional(),
  attachments: z
    .array(askedAttachmentSchema, { error: "Attachments must be a list of files" })
    .max(QUOTED_FILES_MAX, `Attachments must hold at most ${QUOTED_FILES_MAX} files`)
    .optional(),
});
export type AskedMessage = z.input<typeof askedMessageSchema>;

/** A kept message as the room gives it back: once, then it is gone. */
const keptMessageSchema = z.object({
  author: z.string(),
  text: z.string(),
  files: z.array(z.string()).optional(),
  attachments: z.array(askedAttachmentSchema).max(QUOTED_FILES_MAX).optional(),
});

export const keepAskedResponseSchema = z.object({ kept: z.literal(true), expiresAt: z.number() });
export type KeepAskedResponse = z.infer<typeof keepAskedResponseSchema>;

/** `message` is null when nothing is kept under the key (never kept, taken already, or kept too long). */
export const takeAskedResponseSchema = z.object({ message: keptMessageSchema.nullable() });
export type TakeAskedResponse = z.infer<typeof takeAskedResponseSchema>;
