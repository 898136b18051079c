import { type App, HTTPReceiver, type HTTPReceiverOptions, type Logger, SocketModeReceiver, type webApi } from "@slack/bolt";
import { answerHealth, HEALTH_PATH, type Health, METRICS_PATH, type MetricsRoute } from "@duet/shared/health";
import type { IncomingMessage, ServerResponse } from "node:http";
import type { HandedOver } from "./ack-front/protocol.ts";
import type { SlackConfig } from "./config.ts";
import { acknowledgeFailure } from "./ack-failure.ts";

/**
 * The transport: Socket Mode when an app token is set (no public URL needed),
 * else HTTP at /slack/events with bolt's request signing (401 for a bad or
 * missing signature and for a timestamp more than 5 minutes old), with
 * `GET /healthz` and `GET /metrics` beside it (`health`, `metrics`; Socket
 * Mode serves them on HEALTH_PORT).
 *
 * In HTTP mode SLACK_PORT belongs to the ack front (`ack-front/`), a thread
 * that acknowledges signed events itself, holds signed slash commands and
 * clicks open for their ack, and passes every other request to this receiver,
 * which listens on 127.0.0.1 behind it; the events it acknowledged reach bolt
 * through `processHandedOver`, the requests it holds through
 * `processHandedRequest` (`ack-front/handed-request.ts`).
 *
 * Both acknowledge an event that bolt itself fails on (a payload that does not
 * have the shape Slack documents): answering 500 would make Slack retry a
 * delivery that can only fail again, and count against the app's failure rate.
 */

/** The path Slack posts events, commands and clicks to. */
export const EVENTS_PATH = "/slack/events";

/** `oauth`: the OAuth distribution options (install and redirect routes), when configured. */
export function buildReceiver(
  config: SlackConfig,
  logger: Logger,
  clientOptions: webApi.WebClientOptions,
  health: () => Health,
  oauth: Partial<HTTPReceiverOptions> = {},
  metrics?: MetricsRoute,
): HTTPReceiver | SocketModeReceiver {
  if (config.mode === "socket") {
    return new SocketModeReceiver({
      appToken: config.appToken ?? "",
      logger,
      // Its own copy: the Socket Mode client adds its own retry policy for apps.connections.open,
      // and a 429 there is waited out by that client, not thrown.
      installerOptions: { clientOptions: { ...clientOptions, rejectRateLimitedCalls: false } },
      processEventErrorHandler: async ({ error, event }) => {
        logger.warn(`Acknowledged a ${event.body?.type ?? "Socket Mode"} payload bolt could not process: ${error.message}`);
        return true;
      },
    });
  }
  return new HTTPReceiver({
    ...oauth,
    signingSecret: config.signingSecret ?? "",
    endpoints: EVENTS_PATH,
    logger,
    customRoutes: [
      { path: "/health", method: ["GET"], handler: (_req, res) => res.writeHead(200).end("ok") },
      { path: HEALTH_PATH, method: ["GET"], handler: (req, res) => answerHealth(health, req, res) },
      ...(metrics ? [{ path: METRICS_PATH, method: ["GET"], handler: (req: IncomingMessage, res: ServerResponse) => void metrics.answer(req, res) }] : []),
    ],
    processEventErrorHandler: async ({ error, response }) => {
      if (!acknowledgeFailure(error, response.headersSent, logger)) return false;
      // Returning true only marks the request handled; the answer is written here.
      response.writeHead(200);
      response.end();
      return true;
    },
  });
}

/**
 * An event the ack front already acknowledged, processed by bolt as its HTTP
 * receiver would (same retry fields, no custom properties); its `ack` does
 * nothing, since Slack has had its 200.
 */
export async function processHandedOver(app: App, event: HandedOver, logger: Logger): Promise<void> {
  try {
    await app.processEvent({ body: JSON.parse(event.body), ack: async () => {}, retryNum: event.retryNum, retryReason: event.retryReason, customProperties: {} });
  } catch (err) {
    logger.warn(`Acknowledged an event bolt could not process: ${err instanceof Error ? err.message : String(err)}`);
  }
}
