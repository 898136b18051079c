import type { AckKind, BotMetrics } from "@duet/shared/metrics";
import type { App } from "@slack/bolt";

/**
 * Where the Slack bot times its acks (`duet_ack_seconds`). Socket Mode: from
 * the moment a payload reaches bolt to its ack over the socket (the socket's
 * own transit is not the bot's to measure). HTTP mode: the ack front reports
 * how long it held a request before handing it over (an event's 200 follows at
 * once); a command's or a click's ack then adds the main thread's time to it.
 */

/** An event callback, a slash command (a form with `command`), or a click or form (`payload`). */
export function ackKind(body: unknown): AckKind {
  if (typeof body === "string") return new URLSearchParams(body).has("command") ? "command" : "click";
  const b = body as { type?: unknown; command?: unknown } | null;
  if (b?.type === "event_callback") return "event";
  return typeof b?.command === "string" ? "command" : "click";
}

/** Socket Mode: wraps each payload's ack as it reaches bolt, to time it. */
export function timeSocketAcks(app: App, metrics: BotMetrics): void {
  const process = app.processEvent.bind(app);
  app.processEvent = (event) => {
    const arrived = performance.now();
    const ack = event.ack;
    let timed = false;
    return process({
      ...event,
      ack: async (response) => {
        await ack(response);
        if (timed) return;
        timed = true;
        metrics.ack(ackKind(event.body), (performance.now() - arrived) / 1000);
      },
    });
  };
}
