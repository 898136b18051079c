/**
 * The GitHub webhook events Duet acts on, read from their payloads into what
 * a room needs; everything else is named as ignored with a reason (the answer
 * GitHub shows in its delivery log). Only fields of the documented payloads
 * are read, each checked for its type: a payload is data from the network.
 */

/** A pull request was closed: merged (by whom) or closed unmerged. */
export interface PrClosed {
  kind: "closed";
  repo: string;
  number: number;
  merged: boolean;
  /** Who merged it, or who closed it. */
  by: string;
  url: string;
}

/** A comment on a pull request that mentions the App: a conversation comment, or a review comment on a line. */
export interface PrComment {
  kind: "comment";
  repo: string;
  number: number;
  commentId: number;
  author: string;
  body: string;
  url: string;
  /** A review comment's file and line. */
  path?: string;
  line?: number;
}

export type PrEvent = PrClosed | PrComment;

/** The events to subscribe the App to, as GitHub names them. */
export const WEBHOOK_EVENTS = ["pull_request", "issue_comment", "pull_request_review_comment"] as const;

/** The longest comment put to the model; GitHub allows 65,536 characters. */
export const COMMENT_MAX_CHARS = 4_000;

type Json = Record<string, unknown>;
const obj = (v: unknown): Json | null => (v && typeof v === "object" && !Array.isArray(v) ? (v as Json) : null);
const str = (v: unknown): string | null => (typeof v === "string" && v.length > 0 ? v : null);
const int = (v: unknown): number | null => (typeof v === "number" && Number.isInteger(v) && v > 0 ? v : null);
/** `owner/name` as GitHub spells it: letters, digits, `.`, `_`, `-`. */
const repoName = (v: unknown): string | null => {
  const name = str(obj(v)?.full_name);
  return name && /^[A-Za-z0-9_.-]{1,100}\/[A-Za-z0-9_.-]{1,100}$/.test(name) ? name : null;
};
/** A GitHub login as text to show: what GitHub allows in one, else "someone". */
const login = (v: unknown): string => {
  const name = str(obj(v)?.login);
  return name && /^[A-Za-z0-9-]{1,39}(\[bot\])?$/.test(name) ? name : "someone";
};
/** A link to show: https only, one line. */
const link = (v: unknown): string => {
  const url = str(v);
  return url && /^https?:\/\/[^\s<>]+$/.test(url) ? url.slice(0, 500) : "";
};

/** Whether `text` mentions `@slug` as a whole name (not `@slug-other`, not inside an address). */
export function mentions(text: string, slug: string): boolean {
  const escaped = slug.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  return new RegExp(`(^|[^A-Za-z0-9_.@/-])@${escaped}(?![A-Za-z0-9_-])`, "i").test(text);
}

/** Whether the App itself wrote the comment (its bot account, or a comment made through the App): never a new turn. */
function byTheApp(comment: Json, slug: string | undefined): boolean {
  const user = obj(comment.user);
  const name = str(user?.login)?.toLowerCase();
  if (slug && name === `${slug.toLowerCase()}[bot]`) return true;
  const via = str(obj(comment.performed_via_github_app)?.slug);
  return Boolean(slug && via?.toLowerCase() === slug.toLowerCase());
}

export type ReadEvent = { event: PrEvent } | { ignored: string };

/** The payload of `eventName` as an event for a room, or why it is ignored. `slug`: the App's (GITHUB_APP_SLUG), to find mentions of it. */
export function readEvent(eventName: string, payload: Json, slug: string | undefined): ReadEvent {
  const repo = repoName(payload.repository);
  const action = str(payload.action);
  if (eventName === "pull_request") {
    if (action !== "closed") return { ignored: `pull_request ${action ?? "without an action"} is not acted on` };
    const pr = obj(payload.pull_request);
    const number = int(pr?.number) ?? int(payload.number);
    if (!pr || !repo || !number) return { ignored: "the payload names no repository and pull request" };
    const merged = pr.merged === true;
    const by = merged ? login(pr.merged_by ?? payload.sender) : login(payload.sender);
    return { event: { kind: "closed", repo, number, merged, by, url: link(pr.html_url) } };
  }
  if (eventName === "issue_comment" || eventName === "pull_request_review_comment") {
    if (action !== "created") return { ignored: `${eventName} ${action ?? "without an action"} is not acted on` };
    const comment = obj(payload.comment);
    // An issue comment is on a pull request only when its issue carries `pull_request`.
    const onPr = eventName === "issue_comment" ? obj(payload.issue) : obj(payload.pull_request);
    if (eventName === "issue_comment" && !obj(onPr?.pull_request)) return { ignored: "a comment on an issue, not on a pull request" };
    const number = int(onPr?.number);
    const commentId = int(comment?.id);
    const body = typeof comment?.body === "string" ? comment.body : null;
    if (!comment || !repo || !number || !commentId || body === null) return { ignored: "the payload names no repository, pull request and comment" };
    if (byTheApp(comment, slug)) return { ignored: "a comment by the App itself" };
    if (!slug) return { ignored: "GITHUB_APP_SLUG is not set, so no comment can mention the App" };
    if (!mentions(body, slug)) return { ignored: `the comment does not mention @${slug}` };
    const path = eventName === "pull_request_review_comment" ? str(comment.path) : null;
    const line = eventName === "pull_request_review_comment" ? int(comment.line) : null;
    return {
      event: {
        kind: "comment",
        repo,
        number,
        commentId,
        author: login(comment.user),
        body,
        url: link(comment.html_url),
        ...(path ? { path: path.slice(0, 300) } : {}),
        ...(line ? { line } : {}),
      },
    };
  }
  return { ignored: `${eventName || "an unnamed"} event is not acted on` };
}
