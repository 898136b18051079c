import { z } from "zod";
import { actorField } from "./person-fields.ts";

/** The wire of `/api/rooms/:roomId/repo/pr`: the change in the room's checkout, proposed as a pull request. */

/** GitHub takes longer titles; a chat line and a branch slug should not. */
export const PR_TITLE_MAX_CHARS = 200;
/** A proposal's id as the Worker makes it (8 hex), so a button naming anything else is refused before any call. */
export const PR_PROPOSAL_ID_PATTERN = /^[0-9a-f]{8}$/;
/** How many lines of the diff a proposal shows. */
export const PR_DIFF_HEAD_LINES = 40;

/** Who asked, as the pull request credits them: a name, and an address when the front end knows one (a `Co-authored-by` trailer). */
export const prCreditSchema = z.object({
  name: z
    .string({ error: "Credit name must be a string" })
    .trim()
    .min(1, "Credit name cannot be empty")
    .max(100, "Credit name must be at most 100 characters")
    .refine((s) => !/[\p{Cc}<>]/u.test(s), "Credit name cannot hold control characters or < >"),
  email: z.string({ error: "Credit email must be a string" }).max(254, "Credit email must be at most 254 characters").email("Credit email must be an address").optional(),
});
export type PrCredit = z.infer<typeof prCreditSchema>;

export const prProposeRequestSchema = z.object({
  userId: actorField,
  /** Absent: the pull request names the asker by their user id. */
  credit: prCreditSchema.optional(),
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
  /** Who asked, as the front end named them. */
  credit: prCreditSchema.optional(),
  /** The pull request this proposal updates (an earlier one from this room was opened on its branch). */
  updates: z.object({ url: z.string(), number: z.number() }).optional(),
  /** A plain git remote: opening pushes the branch and opens no pull request. */
  branchOnly: z.boolean().optional(),
  at: z.number(),
});
export type PrProposal = z.infer<typeof prProposalSchema>;

/** Opening a proposal: who clicked, and the thread it was asked in (linked from the pull request). */
export const prOpenRequestSchema = z.object({
  userId: actorField,
  threadUrl: z.string({ error: "Thread URL must be a string" }).max(2000, "Thread URL must be at most 2000 characters").url("Thread URL must be a URL").refine((u) => /^https?:\/\//.test(u), "Thread URL must be http(s)").optional(),
});
export type PrOpenRequest = z.input<typeof prOpenRequestSchema>;

/**
 * The pull request a proposal became. `updated`: the push went onto a pull
 * request an earlier proposal opened. `already`: this proposal was opened
 * before (or by a click at the same moment), so nothing was pushed now; the
 * answer is the one the first click had, so a front end can show it again.
 */
export const prOpenedSchema = z.object({
  url: z.string(),
  number: z.number(),
  branch: z.string(),
  updated: z.boolean().optional(),
  already: z.boolean().optional(),
  /** Who opened it: the person whose click pushed, also in an `already` answer to someone else's click. */
  by: z.string().optional(),
  /** A plain git remote: the branch was pushed and no pull request opened (`url`: the repository's, `number` 0). */
  branchOnly: z.boolean().optional(),
});
export type PrOpened = z.infer<typeof prOpenedSchema>;

/** Skipping a proposal: who clicked. */
export const prSkipRequestSchema = z.object({ userId: actorField });
export type PrSkipRequest = z.input<typeof prSkipRequestSchema>;
