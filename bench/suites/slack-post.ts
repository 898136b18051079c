import { signature } from "../../test/fakes/slack/index.ts";

/** A Slack event POSTed to a bot signed with `secret`, as Slack sends it: when it left, how long the ack took, and its status. */
export async function postSlackEvent(url: string, secret: string, payload: unknown): Promise<{ sentAt: number; ack: number; status: number }> {
  const body = JSON.stringify(payload);
  const timestamp = Math.floor(Date.now() / 1000);
  const sentAt = performance.now();
  const res = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json", "x-slack-request-timestamp": String(timestamp), "x-slack-signature": signature(secret, timestamp, body) },
    body,
  });
  await res.text();
  return { sentAt, ack: performance.now() - sentAt, status: res.status };
}
