import { z } from "zod";
import { actorField } from "./person-fields.ts";

/** The wire of `/api/rooms/:roomId/repo/pr`: the change in the room's checkout, proposed as a pull request. */

/** GitHub takes longer titles; a chat line and a branch slug should not. */
export const PR_TITLE_MAX_CHARS = 200;
/** How many lines of the diff a proposal shows. */
export const PR_DIFF_HEAD_LINES = 40;

export const prProposeRequestSchema = z.object({
  userId: actorField,
  /** Absent: Duet names it after what changed. */
  title: z
    .string({ error: "Title must be a string" })
    .trim()
    .min(1, "Title cannot be empty")
    .max(PR_TITLE_MAX_CHARS, `Title must be at most ${PR_TITLE_MAX_CHARS} characters`)
    .refine((s) => !/[\p{Cc}]/u.test(s), "Title cannot hold control characters")
    .optional(),
});
export type PrProposeRequest = z.input<typeof prProposeRequestSchema>;

/** One changed file: its path and the lines added and removed (null for a binary file). */
export const prFileSchema = z.object({ path: z.string(), added: z.number().nullable(), removed: z.number().nullable() });

/**
 * A change proposed as a pull request, not opened yet: the branch it would
 * be pushed to, the base it is against (branch and commit), and what it
 * holds. The diff's head is redacted as every answer is.
 */
export const prProposalSchema = z.object({
  id: z.string(),
  repo: z.string(),
  branch: z.string(),
  base: z.string(),
  baseSha: z.string(),
  title: z.string(),
  diffstat: z.string(),
  diffHead: z.string(),
  files: z.array(prFileSchema),
  requestedBy: z.string(),
  at: z.number(),
});
export type PrProposal = z.infer<typeof prProposalSchema>;

/** Opening a proposal: who clicked, and the thread it was asked in (linked from the pull request). */
export const prOpenRequestSchema = z.object({
  userId: actorField,
  threadUrl: z.string({ error: "Thread URL must be a string" }).max(2000, "Thread URL must be at most 2000 characters").url("Thread URL must be a URL").refine((u) => /^https?:\/\//.test(u), "Thread URL must be http(s)").optional(),
});
export type PrOpenRequest = z.input<typeof prOpenRequestSchema>;

export const prOpenedSchema = z.object({ url: z.string(), number: z.number(), branch: z.string() });
export type PrOpened = z.infer<typeof prOpenedSchema>;
