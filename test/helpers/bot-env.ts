/**
 * The settings a Slack bot process needs to serve the fake Slack for a
 * Worker, written once: the fake's bot token and API, the Worker's URL and
 * token. `extra` picks the mode and anything else the caller tries.
 */
export function slackBotEnv(slack: { id: { botToken: string }; apiUrl: string }, workerUrl: string, token: string, extra: Record<string, string> = {}): Record<string, string> {
  return { SLACK_BOT_TOKEN: slack.id.botToken, SLACK_API_URL: slack.apiUrl, DUET_WORKER_URL: workerUrl, DUET_API_TOKEN: token, ...extra };
}

/** HTTP mode: Slack's signed events, on a port the bot picks and names in its output. */
export const slackHttp = (secret: string): Record<string, string> => ({ SLACK_SIGNING_SECRET: secret, SLACK_PORT: "0" });
