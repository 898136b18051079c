import { AskOrder, DeliveryClaims, DeliveryLoop, type DeliveryItem, DRAIN_MS, InFlight, replicaPosting, WorkerClient } from "@duet/shared";
import { deliverToSlack, proposeInSlack } from "./outbox-delivery.ts";
import type { Health } from "@duet/shared/health";
import { BotMetrics } from "@duet/shared/metrics";
import { type BotTracing, botTracing } from "@duet/shared/otel";
import { ackKind, timeSocketAcks } from "./ack-metrics.ts";
import { App, type Logger, LogLevel, SocketModeReceiver, webApi } from "@slack/bolt";
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { registerCleanup } from "./cleanup.ts";
import { SlackAccess } from "./control/access.ts";
import { registerApprovalClicks } from "./clicks/approval-click.ts";
import { registerPrClicks } from "./clicks/pr-click.ts";
import { registerMemoryClicks } from "./clicks/memory-click.ts";
import { type LiveOptions, type LivePlace, SlackLiveMessage } from "./live/live-message.ts";
import { registerStopButton } from "./live/stop-button.ts";
import type { SlackConfig } from "./config.ts";
import { ThreadStatus } from "./feedback.ts";
import { createLogger, errorsOnly } from "./logger.ts";
import { SlackHealth } from "./health.ts";
import { registerDirectMessages } from "./direct-messages.ts";
import { registerMentions } from "./mentions.ts";
import { PeopleNames } from "./people.ts";
import { buildReceiver, EVENTS_PATH, processHandedOver } from "./receiver.ts";
import { AckFront } from "./ack-front/front.ts";
import { processHandedRequest } from "./ack-front/handed-request.ts";
import { oauthReceiverOptions, slackRefresher } from "./oauth/install-options.ts";
import { WorkerInstallationStore } from "./oauth/installation-store.ts";
import { registerUninstall } from "./oauth/uninstall.ts";
import { deliverInWorkspace } from "./oauth/workspace-delivery.ts";
import { bindWorkspace, currentWorkspace, WorkspaceClient } from "./oauth/workspace-client.ts";
import { registerSlashCommand } from "./slash-command.ts";
import { registerWelcome } from "./welcome.ts";
import { registerAppHome } from "./home/app-home.ts";
import { registerAskDuet } from "./ask-about/ask-shortcut.ts";
import { registerAgentPane } from "./pane/agent-pane.ts";
import { titleDelivered } from "./pane/pane-title.ts";
import { SlackOut, slackErrorCode, withRetryAfter } from "./slack-api.ts";
import { slackFiles } from "./files/slack-files.ts";
import { slackFetch } from "./slack-fetch.ts";
import { workerFetch } from "@duet/shared/worker-fetch";

/**
 * The Slack bot: a bolt App on the transport the config selects (Socket Mode
 * with an app token, else HTTP with request signing), wired to the Worker. It
 * holds no state other replicas would need (ARCHITECTURE.md lists what it keeps
 * in memory); repeated deliveries stay single through the Worker's claims
 * (shared/src/outbox/delivery-claims.ts).
 */

export interface SlackBotOptions {
  logLevel?: LogLevel;
  logger?: Logger;
  /** The Web API client's retry policy for network errors; tests pass `{ retries: 0 }`. */
  retryConfig?: webApi.RetryOptions;
  /** Interface the HTTP receiver listens on (default: all, as Slack must reach it). */
  host?: string;
  /** How long the Worker may take per call (default: the shared client's). */
  workerTimeoutMs?: number;
  /** How the bot waits between its tries of a Worker it cannot reach (default: the timer; tests shorten the waits). */
  workerRetrySleep?: (ms: number) => Promise<void>;
  /** Least time between two new messages in one channel (default: Slack's pace, CHANNEL_MESSAGE_INTERVAL_MS; tests shorten it). */
  channelIntervalMs?: number;
  /** How long stop() waits for turns in flight (default: the shared DRAIN_MS). */
  drainMs?: number;
  /** How often the thread status is renewed while a turn runs (default 90 s; Slack drops it after 2 min). */
  statusRenewMs?: number;
  /** Live answers' pacing and stream lifetime (tests shorten the lifetime). */
  live?: Partial<Pick<LiveOptions, "intervalMs" | "streamLifetimeMs">>;
  /** HTTP mode: the thread that serves SLACK_PORT ended on its own, so Slack can no longer reach the bot (default: logged). */
  onFatal?: (err: Error) => void;
}

export interface SlackBot {
  start(): Promise<void>;
  stop(): Promise<void>;
  /** The HTTP port actually listened on (HTTP mode, after start). */
  readonly port: number | undefined;
  readonly mode: "socket" | "http";
  /** Slack's ids for this bot, known after start (from auth.test). */
  readonly botUserId: string | undefined;
  /** What `GET /healthz` answers: ok only while Slack can reach the bot and it is not stopping. */
  health(): Health;
  /** This process's numbers, for `GET /metrics`. */
  readonly metrics: BotMetrics;
}

const STOP_GRACE_MS = 5_000;
/** auth.test at start-up: three more tries within about four seconds. */
const STARTUP_RETRY: webApi.RetryOptions = { retries: 3, factor: 2, minTimeout: 500, maxTimeout: 2_000 };

export function createSlackBot(config: SlackConfig, options: SlackBotOptions = {}): SlackBot {
  const logger = options.logger ?? createLogger(options.logLevel ?? LogLevel.INFO);
  const inflight = new InFlight((line) => logger.error(line));
  const metrics = new BotMetrics("slack");
  metrics.turnsInFlight(() => inflight.size);
  let app: App | undefined;
  let socketReceiver: SocketModeReceiver | undefined;
  let port: number | undefined;
  let httpServer: Server | undefined;
  let front: AckFront | undefined;
  let botUserId: string | undefined;
  const health = new SlackHealth();
  let deliveries: DeliveryLoop | undefined;
  let tracing: BotTracing | undefined;

  const track = (p: Promise<void>): Promise<void> => inflight.track(p);

  // Without a base URL the client uses Slack's own; GovSlack and tests set SLACK_API_URL.
  const clientOptions: webApi.WebClientOptions = {
    ...(config.apiUrl ? { slackApiUrl: config.apiUrl } : {}),
    ...(options.retryConfig ? { retryConfig: options.retryConfig } : {}),
    // 429s are waited out per Retry-After in slack-api.ts, independently of retryConfig.
    rejectRateLimitedCalls: true,
    logger,
    // Web API calls through undici's request rather than the WHATWG fetch on top of it: far less CPU per call.
    fetch: slackFetch,
  };

  /** The bot's ids from auth.test (one workspace), or none up front (OAuth: each workspace's arrive with its events). */
  async function whoAmI(): Promise<{ user_id: string; bot_id: string; user?: string; team?: string } | undefined> {
    if (config.oauth) return undefined;
    // auth.test first: a wrong token stops start-up with one clear line, and bolt
    // gets the bot's ids up front instead of calling auth.test on its own.
    // A few quick tries only: an unreachable Slack at start-up should say so within seconds.
    // Its retries stay quiet: a failure is the one line start-up ends with.
    const probe = new webApi.WebClient(config.botToken, { ...clientOptions, logger: errorsOnly(logger), retryConfig: options.retryConfig ?? STARTUP_RETRY });
    const where = config.apiUrl ?? "https://slack.com/api/";
    let auth: webApi.AuthTestResponse;
    try {
      auth = await withRetryAfter(() => probe.auth.test(), logger, "auth.test");
    } catch (err) {
      const code = slackErrorCode(err);
      if (code === "slack_webapi_request_error" || code === "slack_webapi_http_error") throw new Error(`Cannot reach Slack's Web API at ${where} (${code})`);
      throw new Error(`Slack did not accept SLACK_BOT_TOKEN (${code})`);
    }
    if (!auth.user_id || !auth.bot_id) throw new Error("SLACK_BOT_TOKEN is not a bot token (auth.test returned no bot id)");
    return { user_id: auth.user_id, bot_id: auth.bot_id, user: auth.user, team: auth.team };
  }

  async function start(): Promise<void> {
    if (app) throw new Error("the Slack bot is already started");
    const auth = await whoAmI();
    botUserId = auth?.user_id;
    const store = config.oauth
      ? new WorkerInstallationStore({ workerUrl: config.workerUrl, apiToken: config.apiToken, logger, refresh: slackRefresher(config.oauth, clientOptions, webApi.WebClient) })
      : undefined;
    const receiver = buildReceiver(config, logger, clientOptions, () => health.check(), oauthReceiverOptions(config, store, clientOptions, logger), metrics);
    if (receiver instanceof SocketModeReceiver) {
      socketReceiver = receiver;
      health.watch(receiver.client);
    }

    const built = auth
      ? new App({ token: config.botToken, botId: auth.bot_id, botUserId: auth.user_id, receiver, clientOptions, logger, logLevel: logger.getLevel() })
      : new App({ receiver, clientOptions, logger, logLevel: logger.getLevel() });
    // Under OAuth each call goes out with the token of the workspace whose event started it.
    if (!auth) built.use(bindWorkspace);
    const client = auth ? built.client : new WorkspaceClient(undefined, clientOptions);
    client.on(webApi.WebClientEvent.RATE_LIMITED, () => metrics.rateLimited());
    if (config.mode === "socket") timeSocketAcks(built, metrics);
    const botUser = () => currentWorkspace()?.botUserId ?? auth?.user_id ?? "";
    const worker = new WorkerClient({ baseUrl: config.workerUrl, token: config.apiToken, timeoutMs: options.workerTimeoutMs, fetch: workerFetch, sleep: options.workerRetrySleep });
    // Every new message this process posts, in any workspace, waits its channel's turn, shared with the other replicas
    // through the Worker; the answers it is still posting are held there, so their outbox leaves them alone.
    const { pace, answering } = replicaPosting(worker, (line) => logger.warn(line), config.replicas === "many", (ms) => metrics.paceWaited(ms), options.channelIntervalMs);
    const out = new SlackOut(client, logger, pace);
    const secrets = [config.botToken, config.appToken, config.signingSecret, config.apiToken, config.oauth?.clientSecret, config.oauth?.stateSecret].filter((s): s is string => Boolean(s));
    const status = new ThreadStatus(out, logger, options.statusRenewMs);
    tracing = await botTracing(config.traces, "duet-slack", (line) => logger.warn(line));
    const flow = { worker, log: (line: string) => logger.warn(line), secrets, streaming: config.streaming, approveOwn: config.approveOwn, fileMaxBytes: config.fileMaxBytes, answering, order: new AskOrder(), tracing };
    const files = slackFiles(client, logger, { botToken: config.botToken, origins: config.fileOrigins, pace: { newMessage: (channel, create) => out.newMessage(channel, create), followMessage: (channel, create) => out.followMessage(channel, create) } });
    const live = (place: LivePlace) => new SlackLiveMessage(client, out, logger, place, { streaming: true, ...options.live });
    const people = new PeopleNames(out);
    const messageDeps = {
      flow, out, claims: new DeliveryClaims(worker, (line) => logger.warn(line)), scope: config.roomScope, logger, status, live, files, people,
      get botUserId() {
        return botUser();
      },
    };
    registerMentions(built, messageDeps, track);
    registerDirectMessages(built, messageDeps, track);
    // Bolt's Assistant is middleware: a message in a thread of a DM goes to the pane and to no listener above.
    registerAgentPane(built, messageDeps, { prompts: config.suggestedPrompts, statusRenewMs: options.statusRenewMs }, track);
    const welcome = {
      out, claims: messageDeps.claims, logger,
      get botUserId() {
        return botUser();
      },
    };
    registerWelcome(built, welcome, track);
    const access = new SlackAccess(config.access, client, logger);
    registerSlashCommand(built, { flow, out, logger, access, live, files, people }, track);
    registerApprovalClicks(built, { flow, out, access, logger }, track);
    registerPrClicks(built, { flow, out, access, logger }, track);
    registerMemoryClicks(built, { flow, out, access, logger, people }, track);
    registerCleanup(built, { worker, logger }, track);
    if (store) registerUninstall(built, { store, worker, logger }, track);
    registerAppHome(built, { flow, logger }, track);
    registerAskDuet(built, messageDeps, track);
    registerStopButton(built, { stop: (room, user) => worker.stop(room, user), logger }, track);
    built.error(async (err) => {
      logger.error(`Unhandled error in a Slack handler: ${err.message}`);
    });

    if (config.mode === "http") {
      // bolt's receiver on loopback, behind the ack front that owns SLACK_PORT.
      httpServer = (await built.start({ port: 0, host: "127.0.0.1" })) as Server;
      const upstreamPort = (httpServer.address() as AddressInfo).port;
      const settings = { port: config.port, host: options.host, signingSecret: config.signingSecret ?? "", upstreamPort, eventsPath: EVENTS_PATH, graceMs: STOP_GRACE_MS };
      const onFatal = options.onFatal ?? ((err: Error) => logger.error(err.message));
      try {
        front = await AckFront.start({
          settings,
          logger,
          onEvent: (event) => {
            metrics.ack("event", event.spentMs / 1000);
            void track(processHandedOver(built, event, logger));
          },
          onRequest: (request, answer) => {
            const handed = performance.now();
            const timed: typeof answer = (a) => {
              answer(a);
              metrics.ack(ackKind(request.body), (request.spentMs + performance.now() - handed) / 1000);
            };
            void track(processHandedRequest(built, request, timed, logger));
          },
          onFatal,
        });
      } catch (err) {
        await built.stop();
        httpServer = undefined;
        throw err;
      }
      port = front.port;
      health.listening();
    } else {
      try {
        await built.start();
      } catch (err) {
        socketReceiver = undefined;
        throw new Error(`Slack did not open a Socket Mode connection with SLACK_APP_TOKEN (${slackErrorCode(err)})`);
      }
    }
    app = built;
    // Answers a bot that died left in their rooms: read now and while the bot runs. Under OAuth each
    // answer is posted with the token of its workspace's installation.
    const deliverItem = async (item: DeliveryItem) => {
      const posted = await deliverToSlack(out, status, item);
      // An agent-pane conversation is titled by its first answer, delivered here as by its own bot.
      if (posted) await titleDelivered(client, item, logger);
      return posted;
    };
    const proposeItem = async (item: DeliveryItem) => (await proposeInSlack(out, status, flow, item), null);
    deliveries = new DeliveryLoop({
      platform: "slack",
      worker,
      secrets,
      answering,
      tracing: flow.tracing,
      log: (line) => logger.warn(line),
      onDelivered: (item) => metrics.outboxDelivered(item.answeredAt),
      deliver: store ? (item) => deliverInWorkspace(store, item, deliverItem) : deliverItem,
      proposePr: async (item) => void (store ? await deliverInWorkspace(store, item, proposeItem) : await proposeItem(item)),
    });
    deliveries.start();
    const who = auth ? `as ${auth.user} (${auth.team})` : "for every workspace that installs it (/slack/install)";
    logger.info(config.mode === "socket" ? `Duet is connected to Slack over Socket Mode ${who}` : `Duet listens for Slack on port ${port} at /slack/events ${who}`);
  }

  async function stop(): Promise<void> {
    const running = app;
    app = undefined;
    if (!running) return;
    health.stop();
    deliveries?.stop();
    deliveries = undefined;
    if (socketReceiver) {
      // The receiver's own stop() does not wait for the socket to close; this does.
      await socketReceiver.client.disconnect();
      socketReceiver = undefined;
    } else {
      // The front first: it stops accepting and finishes its open requests, which may still
      // need bolt behind it; once it has stopped, every event it acknowledged is tracked here.
      await front?.stop();
      front = undefined;
      // Requests are answered as soon as they are acked, so only a stuck client keeps a
      // connection open past the grace period; it must not keep the bot from stopping.
      const force = setTimeout(() => httpServer?.closeAllConnections(), STOP_GRACE_MS);
      await running.stop();
      clearTimeout(force);
      httpServer = undefined;
    }
    await inflight.drain(options.drainMs ?? DRAIN_MS);
    // The answers' last spans go out once they are done, within a bounded wait.
    await tracing?.shutdown();
    tracing = undefined;
    port = undefined;
  }

  return {
    start,
    stop,
    get port() {
      return port;
    },
    get botUserId() {
      return botUserId;
    },
    mode: config.mode,
    health: () => health.check(),
    metrics,
  };
}
