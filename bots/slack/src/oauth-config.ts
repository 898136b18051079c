import { z } from "zod";

/**
 * OAuth distribution's part of the Slack bot's configuration: all three of
 * SLACK_CLIENT_ID, SLACK_CLIENT_SECRET and SLACK_STATE_SECRET, or none (one
 * workspace from SLACK_BOT_TOKEN). Installs arrive over HTTP
 * (`/slack/install`, `/slack/oauth_redirect`), so it runs in HTTP mode.
 */

const OAUTH_VARS = ["SLACK_CLIENT_ID", "SLACK_CLIENT_SECRET", "SLACK_STATE_SECRET"] as const;

const text = z.string().trim().min(1).optional();

export const oauthFields = {
  SLACK_CLIENT_ID: text,
  SLACK_CLIENT_SECRET: text,
  /** Signs the OAuth `state`; short secrets would make a forged state guessable. */
  SLACK_STATE_SECRET: z.string().trim().min(16, "SLACK_STATE_SECRET must be at least 16 characters (e.g. `openssl rand -hex 32`)").optional(),
};

type OAuthEnv = { [K in (typeof OAUTH_VARS)[number]]?: string } & { SLACK_APP_TOKEN?: string };

export interface OAuthConfig {
  clientId: string;
  clientSecret: string;
  stateSecret: string;
}

/** The one line to stop on, or null when the OAuth variables make sense together. */
export function oauthProblem(env: OAuthEnv): { name: string; message: string } | null {
  const set = OAUTH_VARS.filter((name) => env[name]);
  if (set.length === 0) return null;
  const missing = OAUTH_VARS.filter((name) => !env[name]);
  if (missing.length > 0) {
    return { name: missing[0], message: `${missing.join(", ")} must be set with ${set.join(", ")}: OAuth distribution needs SLACK_CLIENT_ID, SLACK_CLIENT_SECRET and SLACK_STATE_SECRET (or none of them)` };
  }
  if (env.SLACK_APP_TOKEN) {
    return { name: "SLACK_APP_TOKEN", message: "SLACK_APP_TOKEN cannot be used with OAuth distribution: installs and events arrive over HTTP (unset it and set SLACK_SIGNING_SECRET)" };
  }
  return null;
}

export function oauthConfig(env: OAuthEnv): OAuthConfig | undefined {
  if (!env.SLACK_CLIENT_ID || !env.SLACK_CLIENT_SECRET || !env.SLACK_STATE_SECRET) return undefined;
  return { clientId: env.SLACK_CLIENT_ID, clientSecret: env.SLACK_CLIENT_SECRET, stateSecret: env.SLACK_STATE_SECRET };
}
