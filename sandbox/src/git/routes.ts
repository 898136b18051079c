import type { IncomingMessage, ServerResponse } from "node:http";
import { Hono } from "hono";
import { branchProblem, repoNameProblem } from "@duet/shared";
import { z } from "zod";
import type { Executor } from "../executor.ts";
import { HttpError, readJson } from "../http.ts";
import { sessionIdSchema } from "../validation.ts";
import { checkoutRepo } from "./checkout.ts";
import { GitStepError } from "./mirror.ts";
import { pushChange } from "./push.ts";

/**
 * The checkout API (the Worker's `local` provider speaks it):
 *
 *   POST /api/git/checkout  {sessionId, url, branch?, token, repo} → {sha, branch, cloned, note?}
 *
 * 400 for a bad body, 404 for a repository or branch the git host does not
 * have, 409 when `repo/` is in the way, 413 when the checkout does not fit
 * the room's workspace quota, 502 when the host refused or failed.
 * The token is used by the host's git only (see git/mirror.ts).
 */

/** A checkout request is small: a URL, a branch, a token. */
export const CHECKOUT_BODY_MAX_BYTES = 16 * 1024;

const ruled = (what: string, problem: (s: string) => string | null) =>
  z.string({ error: `${what} must be a string` }).superRefine((s, ctx) => {
    const why = problem(s);
    if (why) ctx.addIssue({ code: "custom", message: why });
  });

/** An http(s) URL with no credentials, query or fragment in it: git gets the token another way. */
function urlProblem(text: string): string | null {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return "url must be an http(s) URL";
  }
  if (url.protocol !== "https:" && url.protocol !== "http:") return "url must be an http(s) URL";
  if (url.username || url.password || url.search || url.hash) return "url must hold no credentials, query or fragment";
  return null;
}

export const checkoutRequestSchema = z.object({
  sessionId: sessionIdSchema,
  url: ruled("url", urlProblem),
  branch: ruled("branch", branchProblem).nullable().optional(),
  token: z.string({ error: "token must be a string" }).regex(/^[A-Za-z0-9_.-]{1,512}$/, "token must be 1-512 characters of A-Z a-z 0-9 _ . -"),
  repo: ruled("repo", repoNameProblem),
});

const sha = z.string().regex(/^[0-9a-f]{40}$/, "must be a 40-hex commit sha");

export const pushRequestSchema = z.object({
  sessionId: sessionIdSchema,
  url: ruled("url", urlProblem),
  token: checkoutRequestSchema.shape.token,
  repo: ruled("repo", repoNameProblem),
  branch: ruled("branch", branchProblem).refine((b) => b.startsWith("duet/"), "branch must start with duet/"),
  baseSha: sha,
  parent: sha,
  message: z.string().min(1).max(8000),
  author: z.object({ name: z.string().min(1).max(200).regex(/^[^\n<>]+$/), email: z.string().min(3).max(200).regex(/^[^\s<>]+@[^\s<>]+$/) }),
  date: z.number().int().nonnegative(),
});

type Bindings = { incoming: IncomingMessage; outgoing: ServerResponse };

export function gitRoutes(executor: Executor): Hono<{ Bindings: Bindings }> {
  const git = new Hono<{ Bindings: Bindings }>();
  git.post("/api/git/checkout", async (c) => {
    const body = await readJson(c.env.incoming, CHECKOUT_BODY_MAX_BYTES);
    if (typeof body !== "object" || body === null || Array.isArray(body)) throw new HttpError(400, "body must be a JSON object {sessionId, url, branch?, token, repo}");
    const parsed = checkoutRequestSchema.safeParse(body);
    if (!parsed.success) throw new HttpError(400, parsed.error.issues[0].message);
    const { sessionId, url, branch, token, repo } = parsed.data;
    // The caller hung up: the clone inside the sandbox stops with it.
    const hangup = new AbortController();
    const res = c.env.outgoing;
    res.once("close", () => {
      if (!res.writableFinished) hangup.abort();
    });
    try {
      return c.json(await checkoutRepo(executor, executor.fileOwner, { sessionId, url, branch: branch ?? null, token, name: repo }, hangup.signal));
    } catch (err) {
      if (err instanceof GitStepError) return c.json({ error: err.message, code: err.code }, err.status as 404);
      throw err;
    }
  });
  //   POST /api/git/push  {sessionId, url, token, repo, branch: "duet/…", baseSha, parent, message, author, date} → {sha}
  // 409 when nothing changed or the branch moved elsewhere (never forced), 502 when the host refused.
  git.post("/api/git/push", async (c) => {
    const body = await readJson(c.env.incoming, CHECKOUT_BODY_MAX_BYTES);
    const parsed = pushRequestSchema.safeParse(body);
    if (!parsed.success) throw new HttpError(400, parsed.error.issues[0].message);
    try {
      return c.json(await pushChange(executor, parsed.data));
    } catch (err) {
      if (err instanceof GitStepError) return c.json({ error: err.message, code: err.code }, err.status as 404);
      throw err;
    }
  });
  return git;
}
