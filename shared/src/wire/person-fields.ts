import { z } from "zod";
import { sanitizeChatText } from "../text/sanitize.ts";
import { USER_ID_MAX_CHARS, USER_NAME_MAX_CHARS } from "./limits.ts";

/** The wire fields that name a person, shared by every request that carries one. */

/** Who did it: required where the Worker records a person's decision or request. */
export const actorField = z
  .string({ error: "User id must be a string" })
  .trim()
  .min(1, "User id cannot be empty")
  .max(USER_ID_MAX_CHARS, `User id must be at most ${USER_ID_MAX_CHARS} characters`);

/** Who asked: the chat platform's user id, kept with the message in the history. */
export const userIdField = z.string().trim().max(USER_ID_MAX_CHARS, `User id must be at most ${USER_ID_MAX_CHARS} characters`).optional();

/** Who asked, as people see them: a display name, one line, kept with the message and shown to the model as data. */
export const userNameField = z
  .string({ error: "User name must be a string" })
  .transform((n) => sanitizeChatText(n).replace(/\s+/g, " "))
  .refine((n) => n.length <= USER_NAME_MAX_CHARS, `User name must be at most ${USER_NAME_MAX_CHARS} characters`)
  .optional();
