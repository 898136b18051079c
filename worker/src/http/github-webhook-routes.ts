import { Hono } from "hono";
import { DuetError } from "@duet/shared";
import { loadConfig } from "../config.ts";
import { readEvent } from "../github/webhook-events.ts";
import { PULL_ROOMS_NAME } from "../github/webhook-index-object.ts";
import { signatureMatches } from "../github/webhook-signature.ts";
import type { Outcome } from "../outcome.ts";
import type { Env } from "../room/duet-agent.ts";
import { limitBodyTo } from "./json-body.ts";
import { roomStub } from "./rooms.ts";

/**
 * GitHub's payloads are larger than Duet's own requests (a pull request's
 * body alone may be 65,536 characters); GitHub caps them at 25 MB, but
 * nothing Duet acts on comes near 1 MiB.
 */
export const WEBHOOK_BODY_MAX_BYTES = 1024 * 1024;
/** A delivery's id as GitHub sends it (a GUID); anything longer is not one. */
const DELIVERY_ID = /^[A-Za-z0-9-]{1,100}$/;

/**
 * `POST /github/webhook`: GitHub's App webhook. No Duet API token: the body
 * must be signed with GITHUB_WEBHOOK_SECRET (`X-Hub-Signature-256`), else
 * 401. 503 when no secret is set (nothing could be checked); 413 past
 * WEBHOOK_BODY_MAX_BYTES; 400 for a body that is not a JSON object or a
 * delivery without its id. A pull request Duet opened is routed to the room
 * that opened it (`{handled}`, 202); anything else is answered 202
 * `{ignored}` with the reason and does nothing; a delivery acted on before
 * is 200 `{duplicate: true}` and does nothing again.
 */
export const githubWebhookRoutes = new Hono<{ Bindings: Env }>();

githubWebhookRoutes.post("/", limitBodyTo(WEBHOOK_BODY_MAX_BYTES), async (c) => {
  const github = loadConfig(c.env).github;
  if (!github?.webhookSecret || !c.env.PULL_ROOMS) {
    throw new DuetError("github_not_configured", "GitHub webhooks are not set up on this Worker: set GITHUB_WEBHOOK_SECRET (with the GitHub App) to receive them (see docs/configuration.md)");
  }
  const body = new Uint8Array(await c.req.arrayBuffer());
  if (!(await signatureMatches(github.webhookSecret, body, c.req.header("x-hub-signature-256")))) {
    throw new DuetError("unauthorized", "the webhook's X-Hub-Signature-256 is missing or does not match GITHUB_WEBHOOK_SECRET");
  }
  let payload: unknown;
  try {
    payload = JSON.parse(new TextDecoder().decode(body));
  } catch {
    throw new DuetError("invalid_request", "the webhook's body is not JSON");
  }
  if (!payload || typeof payload !== "object" || Array.isArray(payload)) throw new DuetError("invalid_request", "the webhook's body is not a JSON object");
  const eventName = c.req.header("x-github-event") ?? "";
  if (eventName === "ping") return c.json({ pong: true });
  const deliveryId = c.req.header("x-github-delivery") ?? "";
  if (!DELIVERY_ID.test(deliveryId)) throw new DuetError("invalid_request", "the webhook has no X-GitHub-Delivery id");

  const read = readEvent(eventName, payload as Record<string, unknown>, github.slug);
  if ("ignored" in read) return c.json({ ignored: read.ignored }, 202);
  const { event } = read;
  const index = c.env.PULL_ROOMS.getByName(PULL_ROOMS_NAME);
  const route = await index.route(deliveryId, event.repo, event.number);
  if (!route.roomId) return c.json({ ignored: `${event.repo}#${event.number} is not a pull request Duet opened` }, 202);
  if (route.replay) return c.json({ duplicate: true });
  let out: Outcome;
  try {
    out = (await roomStub(c.env, route.roomId).prEvent(event, deliveryId)) as Outcome;
  } catch (err) {
    await index.release(deliveryId);
    throw err;
  }
  if (out.status !== 200) {
    // Not acted on: GitHub's redelivery of it may be.
    await index.release(deliveryId);
    return c.json(out.body as object, out.status as 500);
  }
  const done = out.body as { handled: string | false; reason?: string };
  if (done.handled === false) return c.json({ ignored: `${event.repo}#${event.number} is not a pull request Duet opened (${done.reason})` }, 202);
  return c.json({ handled: done.handled }, 202);
});
