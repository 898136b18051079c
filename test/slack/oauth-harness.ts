import { expect } from "vitest";
import { type EventEnvelope, type FakeSlack, type Grant, type Installer, mentionEvent, type MentionInput, postEvent } from "../fakes/slack/index.ts";
import type { Stack } from "../helpers/stack.ts";
import { type BotHandle, SIGNING_SECRET, startSlackSetup, type SlackSetup } from "./harness.ts";

/**
 * Slack bots under OAuth distribution against the fake Slack and the real
 * Worker (which keeps the installations): the install as a browser goes
 * through it, and events from the workspaces that installed.
 */

export const CLIENT_ID = "1234.5678";
export const CLIENT_SECRET = "test-client-secret-5b1e";
export const STATE_SECRET = "test-state-secret-0123456789abcdef";
export const STORE_KEY = "test-store-key-for-installations-0123456789";

const oauthEnv = { SLACK_CLIENT_ID: CLIENT_ID, SLACK_CLIENT_SECRET: CLIENT_SECRET, SLACK_STATE_SECRET: STATE_SECRET };

/** The stack with DUET_STORE_KEY (and `vars`), the fake Slack as an OAuth app, and `replicas` OAuth bots. */
export async function startOAuthSetup(replicas = 2, vars: Record<string, string> = {}): Promise<SlackSetup> {
  const setup = await startSlackSetup(Array.from({ length: replicas }, () => oauthEnv), { vars: { DUET_STORE_KEY: STORE_KEY, ...vars } });
  setup.slack.oauth.app = { clientId: CLIENT_ID, clientSecret: CLIENT_SECRET, redirectUri: "" };
  return setup;
}

export const baseOf = (bot: BotHandle) => bot.url.replace(/\/slack\/events$/, "");

export interface InstallRun {
  status: number;
  text: string;
  /** The redirect back to the bot with code and state, and the state cookie, for replays. */
  back: string;
  cookie: string;
}

/** A person opens /slack/install, approves for `who` on Slack's page, and comes back with the state cookie. */
export async function install(slack: FakeSlack, bot: BotHandle, who: Installer, edit: (back: URL, cookie: string) => string = (_b, c) => c): Promise<InstallRun> {
  const base = baseOf(bot);
  slack.oauth.app = { ...slack.oauth.app!, redirectUri: `${base}/slack/oauth_redirect` };
  const start = await fetch(`${base}/slack/install`, { redirect: "manual" });
  expect(start.status).toBe(302);
  const cookie = (start.headers.get("set-cookie") ?? "").split(";")[0];
  expect(cookie).toMatch(/^slack-app-oauth-state=./);
  const authorize = new URL(start.headers.get("location") ?? "");
  if (who.teamId) authorize.searchParams.set("team", who.teamId);
  if (who.enterpriseId) authorize.searchParams.set("enterprise", who.enterpriseId);
  if (who.orgWide) authorize.searchParams.set("org_wide", "true");
  const approved = await fetch(authorize, { redirect: "manual" });
  expect(approved.status).toBe(302);
  const back = new URL(approved.headers.get("location") ?? "");
  const sent = edit(back, cookie);
  const done = await fetch(back, { headers: sent ? { cookie: sent } : {}, redirect: "manual" });
  return { status: done.status, text: await done.text(), back: back.toString(), cookie };
}

/** The mention a person in `teamId` (default: the grant's workspace) sends; Slack delivers it signed. */
export async function mentionIn(slack: FakeSlack, bot: BotHandle, grant: Grant, input: MentionInput, teamId?: string) {
  const payload = slack.oauth.deliveredTo(mentionEvent(slack, input), grant, teamId);
  const delivery = await postEvent(bot.url, payload, { secret: SIGNING_SECRET });
  const ts = String(payload.event.ts);
  return { delivery, ts, threadTs: ts, channel: input.channel };
}

export function deliver(bot: BotHandle, payload: EventEnvelope) {
  return postEvent(bot.url, payload, { secret: SIGNING_SECRET });
}

/** The installation the Worker holds under `key`, or null. */
export async function stored(stack: Stack, key: string): Promise<{ installation: any; version: number } | null> {
  const res = await fetch(`${stack.workerUrl}/api/installations/${key}`, { headers: { authorization: `Bearer ${stack.token}` } });
  if (res.status === 404) return null;
  expect(res.status).toBe(200);
  return (await res.json()) as { installation: any; version: number };
}

/** The tokens the bot used for Web API calls about `channel`. */
export const tokensIn = (slack: FakeSlack, channel: string) => new Set(slack.calls.filter((c) => c.args.channel === channel || c.args.channel_id === channel).map((c) => c.token));
