import { createHmac, randomUUID } from "node:crypto";

/** What a webhook delivery looks like to the receiver: its status and JSON answer. */
export interface WebhookAnswer {
  status: number;
  body: Record<string, unknown>;
}

export interface DeliveryOptions {
  /** GitHub's `X-GitHub-Delivery` (a fresh GUID unless given: a redelivery reuses one). */
  id?: string;
  /** The signature header as sent; absent: signed with the secret as GitHub does. `null`: no header at all. */
  signature?: string | null;
  /** The raw body instead of the payload's JSON (a malformed body). */
  raw?: string;
}

/**
 * Delivers a webhook as GitHub does: `POST` the JSON payload with
 * `X-GitHub-Event`, `X-GitHub-Delivery` and `X-Hub-Signature-256`
 * (`sha256=` HMAC-SHA256 of the body under the webhook secret).
 */
export async function deliverWebhook(url: string, secret: string, event: string, payload: unknown, opts: DeliveryOptions = {}): Promise<WebhookAnswer> {
  const body = opts.raw ?? JSON.stringify(payload);
  const signature = opts.signature === undefined ? `sha256=${createHmac("sha256", secret).update(body).digest("hex")}` : opts.signature;
  const res = await fetch(url, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      "user-agent": "GitHub-Hookshot/fake",
      "x-github-event": event,
      "x-github-delivery": opts.id ?? randomUUID(),
      ...(signature === null ? {} : { "x-hub-signature-256": signature }),
    },
    body,
  });
  const text = await res.text();
  let parsed: Record<string, unknown> = {};
  try {
    parsed = JSON.parse(text) as Record<string, unknown>;
  } catch {
    parsed = { text };
  }
  return { status: res.status, body: parsed };
}

/** GitHub's payloads, cut to the fields Duet reads (and a few it does not, as GitHub sends them). */
export const payloads = {
  closed: (repo: string, number: number, merged: boolean, by: string) => ({
    action: "closed",
    number,
    pull_request: { number, html_url: `https://github.example/${repo}/pull/${number}`, state: "closed", merged, merged_by: merged ? { login: by, type: "User" } : null },
    repository: { full_name: repo },
    sender: { login: by, type: "User" },
  }),
  reviewComment: (repo: string, number: number, id: number, author: string, body: string, extra: Record<string, unknown> = {}) => ({
    action: "created",
    comment: { id, body, path: "src/a.txt", line: 2, user: { login: author, type: author.endsWith("[bot]") ? "Bot" : "User" }, html_url: `https://github.example/${repo}/pull/${number}#discussion_r${id}`, ...extra },
    pull_request: { number, html_url: `https://github.example/${repo}/pull/${number}` },
    repository: { full_name: repo },
    sender: { login: author },
  }),
  issueComment: (repo: string, number: number, id: number, author: string, body: string) => ({
    action: "created",
    comment: { id, body, user: { login: author, type: "User" }, html_url: `https://github.example/${repo}/pull/${number}#issuecomment-${id}` },
    issue: { number, pull_request: { url: `https://api.github.example/repos/${repo}/pulls/${number}` } },
    repository: { full_name: repo },
    sender: { login: author },
  }),
};
