import { readFileSync } from "node:fs";
import { signature } from "../fakes/slack/index.ts";
import type { Delivery, Outcome } from "./ack-slack-process.ts";

/**
 * Run as a process of its own (`ack-slack-process.ts` starts it): reads the
 * deliveries on stdin, posts each as Slack would, and prints each outcome as
 * a JSON line (with its delivery's index) as soon as it is known.
 * Slack's rule: a delivery not answered 200 within 3 s failed, and is sent
 * again at once with `x-slack-retry-num` (Slack waits a minute, then five,
 * before its later retries; a test has no use for the wait), up to 3 times.
 */

const SLACK_ACK_DEADLINE_MS = 3_000;
const SLACK_RETRIES = 3;

async function attempt(d: Delivery, retry: number): Promise<{ status: number | string; text: string }> {
  const ts = Math.floor(Date.now() / 1000);
  const headers: Record<string, string> = { "content-type": d.contentType ?? "application/json", "x-slack-request-timestamp": String(ts), "x-slack-signature": signature(d.secret, ts, d.body) };
  if (retry > 0) Object.assign(headers, { "x-slack-retry-num": String(retry), "x-slack-retry-reason": "http_timeout" });
  try {
    const res = await fetch(d.url, { method: "POST", headers, body: d.body, signal: AbortSignal.timeout(SLACK_ACK_DEADLINE_MS) });
    return { status: res.status, text: await res.text() };
  } catch (err) {
    const cause = (err as { cause?: { code?: string } }).cause?.code;
    return { status: cause ? `${(err as Error).name} (${cause})` : (err as Error).name, text: "" };
  }
}

async function deliver(d: Delivery, index: number): Promise<void> {
  await new Promise((r) => setTimeout(r, d.atMs));
  const first = await attempt(d, 0);
  let retries = 0;
  let last = first.status;
  while (last !== 200 && retries < SLACK_RETRIES) last = (await attempt(d, ++retries)).status;
  const outcome: Outcome = { index, first: first.status, retries, acked: last === 200, text: first.text };
  process.stdout.write(`${JSON.stringify(outcome)}\n`);
}

const deliveries = JSON.parse(readFileSync(0, "utf8")) as Delivery[];
await Promise.all(deliveries.map(deliver));
