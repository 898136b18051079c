import { type DeliveryClaims, WELCOME_LINES } from "@duet/shared";
import type { App, Logger } from "@slack/bolt";
import { z } from "zod";
import type { SlackOut } from "./slack-api.ts";
import { envelopeSchema, slackScope } from "./turn.ts";

/**
 * When someone invites Duet to a channel, it says in one message what it is and
 * how to use it, so nobody has to guess. Only Duet's own join counts; other
 * people joining are none of its business.
 */

export const WELCOME_TEXT = `:wave: ${WELCOME_LINES.slack.join("\n")}`;

const joinSchema = z.object({ type: z.literal("member_joined_channel"), user: z.string().min(1), channel: z.string().min(1) });

export interface WelcomeDeps {
  out: SlackOut;
  botUserId: string;
  /** A retried delivery, on any replica, must not greet twice. */
  claims: DeliveryClaims;
  logger: Logger;
}

export function registerWelcome(app: App, deps: WelcomeDeps, track: (p: Promise<void>) => Promise<void>): void {
  app.event("member_joined_channel", async ({ event, body }) => {
    await track(welcome(event, body, deps));
  });
}

async function welcome(rawEvent: unknown, rawBody: unknown, deps: WelcomeDeps): Promise<void> {
  const event = joinSchema.safeParse(rawEvent);
  const envelope = envelopeSchema.safeParse(rawBody);
  if (!event.success || !envelope.success) {
    deps.logger.warn("Ignored a malformed member_joined_channel event");
    return;
  }
  if (event.data.user !== deps.botUserId) return;
  const team = envelope.data.team_id ?? "unknown";
  if (!(await deps.claims.first(slackScope(team), envelope.data.event_id))) return;
  await deps.out.post(event.data.channel, WELCOME_TEXT);
}
