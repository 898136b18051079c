import { z } from "zod";
import { actorField, userNameField } from "./person-fields.ts";

/** The wire of `/api/rooms/:roomId/memory`: the facts people pinned for the room's model to keep in mind. */

/** One fact fits a chat line or two; the model reads every pinned fact in every turn. */
export const FACT_MAX_CHARS = 500;
/** Facts one room may hold: all of them go into each prompt. */
export const FACTS_PER_ROOM = 100;

export const pinFactRequestSchema = z.object({
  fact: z
    .string({ error: "Fact must be a string" })
    // One line in the prompt: line breaks and tabs become spaces, runs of spaces one.
    .transform((s) => s.replace(/\s+/g, " ").trim())
    .refine((s) => s.length > 0, "Fact cannot be empty: say what Duet should remember")
    .refine((s) => s.length <= FACT_MAX_CHARS, `Fact must be at most ${FACT_MAX_CHARS} characters`)
    .refine((s) => !/[\p{Cc}\p{Cf}]/u.test(s), "Fact cannot hold control or invisible characters"),
  userId: actorField,
  userName: userNameField,
});
export type PinFactRequest = z.input<typeof pinFactRequestSchema>;

/** A pinned fact: its number in the list (1 is the oldest), what it says, who pinned it and when. */
export const pinnedFactSchema = z.object({
  n: z.number(),
  text: z.string(),
  pinnedBy: z.string(),
  pinnedByName: z.string().optional(),
  at: z.number(),
});
export type PinnedFact = z.infer<typeof pinnedFactSchema>;

export const memoryResponseSchema = z.object({ facts: z.array(pinnedFactSchema), max: z.number() });
export type MemoryResponse = z.infer<typeof memoryResponseSchema>;

/** A fact pinned (or found already pinned) and the room's facts after it. */
export const pinResponseSchema = memoryResponseSchema.extend({ pinned: pinnedFactSchema, already: z.boolean() });
export type PinResponse = z.infer<typeof pinResponseSchema>;

/** A fact forgotten, and the room's facts after it (renumbered). */
export const forgetResponseSchema = memoryResponseSchema.extend({ forgotten: pinnedFactSchema });
export type ForgetResponse = z.infer<typeof forgetResponseSchema>;
