import { Client, Events, GatewayIntentBits, Options, Partials, RESTEvents, type RESTOptions } from "discord.js";
import { discordSources } from "./files/incoming.ts";
import { AskOrder, DeliveryClaims, DeliveryLoop, InFlight, replicaPosting, WorkerClient } from "@duet/shared";
import type { Health } from "@duet/shared/health";
import { BotMetrics } from "@duet/shared/metrics";
import { type BotTracing, botTracing, TRACING_OFF } from "@duet/shared/otel";
import { workerFetch } from "@duet/shared/worker-fetch";
import { Agent } from "undici";
import { AskedMessages } from "./asked-messages.ts";
import { attachCleanup, RoomCleaner } from "./cleanup.ts";
import type { DiscordConfig } from "./config.ts";
import { consoleLogger, TYPING_RENEW_MS, type BotDeps, type Logger } from "./deps.ts";
import { discordHealth } from "./health.ts";
import { handleInteraction } from "./interactions.ts";
import { handleStopClick, isStopClick } from "./live/stop-button.ts";
import { handleMessage } from "./mentions.ts";
import { deliverToDiscord, proposeInDiscord } from "./outbox-delivery.ts";
import { welcome } from "./welcome.ts";

/**
 * The Duet Discord bot: a discord.js client on the gateway that turns slash
 * commands and mentions into Worker requests. It keeps no state another shard
 * would need: rooms and delivery claims live in the Worker (ARCHITECTURE.md
 * lists what it keeps in memory).
 */

export interface DiscordBotOptions {
  /** A Worker client to use instead of one built from the config. */
  worker?: WorkerClient;
  /** Extra REST options (tests raise `globalRequestsPerSecond`). */
  rest?: Partial<RESTOptions>;
  log?: Logger;
  /** How often a mention's typing indicator is renewed (default 8 s; Discord shows it for 10). */
  typingRenewMs?: number;
  /** Least time between two edits of a live answer (default LIVE_INTERVAL_MS; tests lengthen it). */
  liveIntervalMs?: number;
  /** discord.js sharding: set by ShardingManager through the environment, or explicitly. */
  shards?: number | number[] | "auto";
  shardCount?: number;
}

export interface DiscordBot {
  client: Client;
  /** Logs in and resolves once the gateway is READY and every guild has arrived. */
  start(): Promise<void>;
  /** Stops taking events, lets answers in progress finish for up to `graceMs` (none by default; `main.ts` gives the shared DRAIN_MS), then disconnects. */
  stop(graceMs?: number): Promise<void>;
  /** What `GET /healthz` answers: ok only while every shard is ready and the bot is not stopping. */
  health(): Health;
  /** This process's numbers, for `GET /metrics`. */
  readonly metrics: BotMetrics;
}

/**
 * discord.js's REST client sends attachments as FormData through undici 6. Without an
 * agent of its own it uses the process-wide dispatcher, which another library (wrangler
 * brings undici 7) may have replaced with one that cannot send that FormData: every
 * upload then fails with "other side closed". Its own agent keeps uploads working in
 * any process the bot is embedded in.
 */
export function restOptions(config: Pick<DiscordConfig, "apiUrl">, extra: Partial<RESTOptions> = {}): Partial<RESTOptions> {
  return { agent: new Agent(), ...(config.apiUrl ? { api: config.apiUrl } : {}), ...extra };
}

export function createDiscordBot(config: DiscordConfig, opts: DiscordBotOptions = {}): DiscordBot {
  const log = opts.log ?? consoleLogger;
  const worker = opts.worker ?? new WorkerClient({ baseUrl: config.workerUrl, token: config.apiToken, fetch: workerFetch });
  const cleaner = new RoomCleaner(worker, log);
  // A room used again must be cleaned again when its place goes, though the cleaner remembers cleaning it.
  // The bot's own tokens, never shown in chat: the flow and the delivery loop redact them from everything posted.
  const secrets = [config.token, config.apiToken];
  // A second between new messages in a channel, kept by this process alone: a guild's events (and a DM's) reach
  // exactly one shard process, so no other process posts in its channels and nothing needs sharing through the
  // Worker. The answers it is still posting are skipped by its own outbox delivery.
  const metrics = new BotMetrics("discord");
  const { pace, answering } = replicaPosting(worker, (line) => log.warn(line), false, (ms) => metrics.paceWaited(ms));
  // Off until start() has it: OpenTelemetry's SDK is loaded only when a collector is set.
  let tracing: BotTracing = TRACING_OFF;
  const flow = { worker, log: (line: string) => log.warn(line), secrets, roomUsed: (room: string) => cleaner.forget(room), streaming: config.streaming, approveOwn: config.approveOwn, fileMaxBytes: config.fileMaxBytes, answering, order: new AskOrder(), tracing };
  const deps: BotDeps = { flow, log, claims: new DeliveryClaims(worker, (line) => log.warn(line)), typingRenewMs: opts.typingRenewMs ?? TYPING_RENEW_MS, ...(opts.liveIntervalMs ? { liveIntervalMs: opts.liveIntervalMs } : {}), access: config.access, fileMaxBytes: config.fileMaxBytes, cdn: discordSources(config.cdnOrigins), pace, asked: new AskedMessages(worker, (line) => log.warn(line)), components: config.components };

  const client = new Client({
    // No MessageContent intent: Discord sends the text of messages that mention the bot anyway.
    intents: [GatewayIntentBits.Guilds, GatewayIntentBits.GuildMessages, GatewayIntentBits.DirectMessages],
    // DM channels are never cached; without this partial, DMs would be dropped silently.
    partials: [Partials.Channel],
    // Duet answers the message object an event carries and never reads a cached one, while
    // discord.js keeps the last 200 messages of every channel it sees by default: memory that
    // grows with the server's channels (measured in bench/: ~8 MiB of heap per 1,000 turns).
    makeCache: Options.cacheWithLimits({ ...Options.DefaultMakeCacheSettings, MessageManager: 0 }),
    // Nothing Duet sends may ping anyone unless a call says so.
    allowedMentions: { parse: [], repliedUser: true },
    rest: restOptions(config, opts.rest),
    ...(opts.shards !== undefined ? { shards: opts.shards } : {}),
    ...(opts.shardCount !== undefined ? { shardCount: opts.shardCount } : {}),
  });

  // Answers in progress, so stop() can let them finish; none are taken once stopping.
  const inflight = new InFlight((line) => log.error(line));
  metrics.turnsInFlight(() => inflight.size);
  client.rest.on(RESTEvents.RateLimited, () => metrics.rateLimited());
  let stopping = false;
  const tracked = <A extends unknown[]>(what: string, fn: (...args: A) => Promise<void>) => (...args: A) => {
    if (!stopping) void inflight.track(fn(...args), what);
  };
  const stopDeps = { stop: (room: string, user: string) => worker.stop(room, user), log };
  client.on(Events.InteractionCreate, tracked("interaction", (i) => {
    const received = performance.now();
    const acked = () => metrics.ack("command", (performance.now() - received) / 1000);
    return isStopClick(i) ? handleStopClick(i, stopDeps) : handleInteraction(i, deps, acked);
  }));
  client.on(Events.MessageCreate, tracked("message", (m) => handleMessage(m, deps)));
  // Only servers joined while running: the ones in READY were joined long ago.
  client.on(Events.GuildCreate, tracked("welcome", (g) => welcome(g, pace, log)));
  attachCleanup(client, cleaner, log);
  // Without an 'error' listener an emitted error would throw; discord.js reconnects on its own.
  client.on(Events.Error, (err) => log.error(`client error: ${err.message}`));
  client.on(Events.ShardError, (err, id) => log.warn(`shard ${id} error: ${err.message}`));
  client.on(Events.ShardResume, (id, replayed) => log.info(`shard ${id} resumed (${replayed} events replayed)`));
  client.on(Events.Warn, (msg) => log.warn(msg));
  // Answers a bot that died left in their rooms: read once connected, and while the bot runs.
  let deliveries: DeliveryLoop | undefined;

  return {
    client,
    health: () => discordHealth(client, stopping),
    metrics,
    async start() {
      tracing = await botTracing(config.traces, "duet-discord", (line) => log.warn(line));
      flow.tracing = tracing;
      const ready = new Promise<void>((resolve) => client.once(Events.ClientReady, () => resolve()));
      await client.login(config.token);
      await ready;
      log.info(`connected as ${client.user?.tag} in ${client.guilds.cache.size} server(s)`);
      deliveries = new DeliveryLoop({ platform: "discord", worker, secrets, answering, tracing, log: (line) => log.warn(line), onDelivered: (item) => metrics.outboxDelivered(item.answeredAt), deliver: (item) => deliverToDiscord(client.rest, pace, log, item, config.components), proposePr: (item) => proposeInDiscord(client.rest, pace, log, flow, item) });
      deliveries.start();
    },
    async stop(graceMs = 0) {
      stopping = true;
      deliveries?.stop();
      if (inflight.size > 0 && graceMs > 0) {
        log.info(`stopping: waiting up to ${Math.round(graceMs / 1000)} s for ${inflight.size} answer(s) in progress`);
        await inflight.drain(graceMs);
      }
      await client.destroy();
      // The answers' last spans go out once they are done, within a bounded wait.
      await tracing.shutdown();
    },
  };
}
