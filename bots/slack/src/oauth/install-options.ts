import type { HTTPReceiverOptions, InstallationStore, Logger, webApi } from "@slack/bolt";
import { INSTALL_WORDS } from "@duet/shared";
import type { SlackConfig } from "../config.ts";

/**
 * What the HTTP receiver needs for OAuth distribution: bolt's InstallProvider
 * serves `/slack/install` (straight on to Slack's authorize page, with the
 * `state` in a cookie for this browser) and `/slack/oauth_redirect` (checks the
 * state against the cookie and its signature, exchanges the code with
 * `oauth.v2.access`, stores the installation), all at the Slack the Web API
 * client is pointed at.
 */

/** The bot scopes an install asks for: the same as bots/slack/manifest.yaml (a test holds them equal). */
export const BOT_SCOPES = [
  "app_mentions:read",
  "assistant:write",
  "channels:read",
  "chat:write",
  "commands",
  "files:read",
  "files:write",
  "groups:read",
  "channels:history",
  "groups:history",
  "im:history",
  "reactions:write",
  "usergroups:read",
];

const page = (title: string, text: string) =>
  `<!doctype html><html><head><meta charset="utf-8"><title>${title}</title></head><body><h1>${title}</h1><p>${text}</p></body></html>`;

/** Slack's authorize page beside its Web API: https://slack.com/api/ → https://slack.com/oauth/v2/authorize (GovSlack and tests alike). */
export function authorizeUrl(apiUrl: string | undefined): string {
  return new URL("../oauth/v2/authorize", apiUrl ?? "https://slack.com/api/").toString();
}

export function oauthReceiverOptions(
  config: SlackConfig,
  store: InstallationStore | undefined,
  clientOptions: webApi.WebClientOptions,
  logger: Logger,
): Partial<HTTPReceiverOptions> {
  if (!config.oauth || !store) return {};
  return {
    clientId: config.oauth.clientId,
    clientSecret: config.oauth.clientSecret,
    stateSecret: config.oauth.stateSecret,
    installationStore: store,
    scopes: BOT_SCOPES,
    installerOptions: {
      directInstall: true,
      stateVerification: true,
      authorizationUrl: authorizeUrl(config.apiUrl),
      clientOptions,
      callbackOptions: {
        success: (installation, _options, _req, res) => {
          const where = installation.isEnterpriseInstall ? installation.enterprise?.name : installation.team?.name;
          res.writeHead(200, { "content-type": "text/html; charset=utf-8" });
          res.end(page(INSTALL_WORDS.installedTitle, INSTALL_WORDS.installed(escapeHtml(where ?? INSTALL_WORDS.yourWorkspace))));
        },
        // A forged, expired or replayed state, a cancelled approval or a refused code: the person's to retry, never a 500.
        failure: (error, _options, _req, res) => {
          logger.warn(`A Slack install failed: ${(error as { code?: string }).code ?? error.message}`);
          res.writeHead(400, { "content-type": "text/html; charset=utf-8" });
          res.end(page(INSTALL_WORDS.notInstalledTitle, INSTALL_WORDS.notInstalled));
        },
      },
    },
  };
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** Token rotation's call: `oauth.v2.access` with `grant_type=refresh_token`, at the configured Slack. */
export function slackRefresher(oauth: NonNullable<SlackConfig["oauth"]>, clientOptions: webApi.WebClientOptions, client: typeof webApi.WebClient) {
  const slack = new client(undefined, clientOptions);
  return async (refreshToken: string) => {
    const res = await slack.oauth.v2.access({ client_id: oauth.clientId, client_secret: oauth.clientSecret, grant_type: "refresh_token", refresh_token: refreshToken });
    if (!res.access_token || !res.refresh_token || res.expires_in === undefined) throw new Error("Slack answered a token refresh without a new token");
    return { accessToken: res.access_token, refreshToken: res.refresh_token, expiresIn: res.expires_in };
  };
}
