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

/**
 * `resetAt`: when a person last reset the room (0: never), which a reset's buttons send back so a stale click resets nothing;
 * `summary`: the room keeps a rolling summary of its earlier conversation (which a reset keeps or wipes with the facts).
 */
export const memoryResponseSchema = z.object({ facts: z.array(pinnedFactSchema), max: z.number(), resetAt: z.number().optional(), summary: z.boolean().optional() });
export type MemoryResponse = z.infer<typeof memoryResponseSchema>;

/** A fact pinned (or found already pinned) and the room's facts after it. */
export const pinResponseSchema = memoryResponseSchema.extend({ pinned: pinnedFactSchema, already: z.boolean() });
export type PinResponse = z.infer<typeof pinResponseSchema>;

/** A fact forgotten, and the room's facts after it (renumbered). */
export const forgetResponseSchema = memoryResponseSchema.extend({ forgotten: pinnedFactSchema });
export type ForgetResponse = z.infer<typeof forgetResponseSchema>;

/** Facts one answer may offer for pinning: each is a message line with two buttons, and a model that proposes more is not choosing. */
export const FACT_PROPOSALS_PER_ANSWER = 3;

/** A proposal's id, as a button carries it back (Discord's custom ids allow 100 characters). */
export const PROPOSAL_ID_PATTERN = /^[A-Za-z0-9-]{1,64}$/;

/** A fact the model proposed (`<remember>`), offered for a person to pin with a click; nothing is pinned until then. */
export const proposedFactSchema = z.object({ id: z.string(), fact: z.string() });
export type ProposedFact = z.infer<typeof proposedFactSchema>;

/** Who clicked Pin or Dismiss on a proposed fact. */
export const proposalClickSchema = z.object({ userId: actorField, userName: userNameField });
export type ProposalClick = z.input<typeof proposalClickSchema>;

/** A proposed fact dismissed: nothing was pinned. */
export const dismissResponseSchema = z.object({ dismissed: proposedFactSchema });
export type DismissResponse = z.infer<typeof dismissResponseSchema>;
