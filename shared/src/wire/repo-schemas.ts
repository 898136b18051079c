import { z } from "zod";
import { actorField } from "./person-fields.ts";
import { policySourceSchema } from "./schemas.ts";

/** The wire of `/api/rooms/:roomId/repo`: the repository a room works on, and its branch. */

/** GitHub's limits: an owner (user or organization) is at most 39 characters, a repository name at most 100. */
export const REPO_OWNER_MAX_CHARS = 39;
export const REPO_NAME_MAX_CHARS = 100;
/** Git has no hard limit; GitHub refuses refs much past this, and a chat line should hold it. */
export const BRANCH_MAX_CHARS = 255;

/** Letters and digits, with single hyphens between them (GitHub's rule for user and organization names). */
const OWNER = /^[A-Za-z0-9](?:[A-Za-z0-9]|-(?=[A-Za-z0-9]))*$/;
const NAME = /^[A-Za-z0-9._-]+$/;

/** Why `repo` is not a GitHub `owner/name`, in words; null when it is one. */
export function repoNameProblem(repo: string): string | null {
  const parts = repo.split("/");
  if (parts.length !== 2) return `Repository must be owner/name (one "/")`;
  const [owner, name] = parts;
  if (!owner || owner.length > REPO_OWNER_MAX_CHARS || !OWNER.test(owner)) {
    return `Repository owner must be 1-${REPO_OWNER_MAX_CHARS} letters, digits or single hyphens, not starting or ending with a hyphen`;
  }
  if (!name || name.length > REPO_NAME_MAX_CHARS || !NAME.test(name)) {
    return `Repository name must be 1-${REPO_NAME_MAX_CHARS} characters of A-Z, a-z, 0-9, ".", "_" or "-"`;
  }
  if (name === "." || name.includes("..")) return `Repository name cannot be "." or contain ".."`;
  return null;
}

/**
 * Why `branch` is not a branch name git accepts (git check-ref-format
 * --branch), in words; null when it is one. Unicode letters are allowed, as
 * git allows them; invisible and control characters are not (they make a
 * name that reads as another).
 */
export function branchProblem(branch: string): string | null {
  if (!branch) return "Branch cannot be empty";
  if (branch.length > BRANCH_MAX_CHARS) return `Branch must be at most ${BRANCH_MAX_CHARS} characters`;
  if (/[\p{C}\s~^:?*[\\]/u.test(branch)) return "Branch cannot hold spaces, control or invisible characters, or any of ~ ^ : ? * [ \\";
  if (branch.startsWith("-")) return `Branch cannot start with "-"`;
  if (branch.startsWith("/") || branch.endsWith("/") || branch.includes("//")) return `Branch cannot start or end with "/" or hold "//"`;
  if (branch.includes("..") || branch.includes("@{") || branch === "@") return `Branch cannot hold ".." or "@{", or be "@"`;
  if (branch.endsWith(".") || branch.split("/").some((part) => part.startsWith(".") || part.endsWith(".lock"))) {
    return `Branch cannot end with "." and no part of it may start with "." or end with ".lock"`;
  }
  return null;
}

/** A field that must pass `problem` (trimmed first), its message being the rule broken. */
function ruledString(what: string, problem: (s: string) => string | null) {
  return z
    .string({ error: `${what} must be a string` })
    .trim()
    .superRefine((s, ctx) => {
      const why = problem(s);
      if (why) ctx.addIssue({ code: "custom", message: why });
    });
}

export const repoRequestSchema = z.object({
  repo: ruledString("Repository", (s) => (s ? repoNameProblem(s) : "Repository cannot be empty")),
  /** Absent: the repository's default branch. */
  branch: ruledString("Branch", branchProblem).optional(),
  userId: actorField,
});
export type RepoRequest = z.input<typeof repoRequestSchema>;

/** Where a repository is hosted: a GitHub App installation, or a plain git remote over HTTPS (branches only, no pull requests). */
export const repoProviderSchema = z.enum(["github", "git"]);
export type RepoProvider = z.infer<typeof repoProviderSchema>;

/** The checkout in the room's workspace: the commit it holds and when it was made; null until one is made. */
export const repoCheckoutSchema = z.object({ sha: z.string(), at: z.number() });

/**
 * The repository a room works on, where that comes from (set on the room, or
 * its channel's for a thread room), or `{repo: null}` when it has none.
 */
export const repoResponseSchema = z.union([
  z.object({
    repo: z.string(),
    /** Null: the repository's default branch. */
    branch: z.string().nullable(),
    provider: repoProviderSchema,
    source: policySourceSchema.exclude(["default"]),
    checkout: repoCheckoutSchema.nullable(),
  }),
  z.object({ repo: z.null() }),
]);
export type RepoResponse = z.infer<typeof repoResponseSchema>;
