/**
 * What the ack front's thread and the bot's main thread say to each other.
 * Messages are structured clones: the two threads share no object.
 */

/** The thread's settings, copied to it at start. */
export interface FrontSettings {
  /** The public port (SLACK_PORT; 0 picks a free one) and interface. */
  port: number;
  host: string | undefined;
  signingSecret: string;
  /** Where bolt's own HTTP receiver listens, on 127.0.0.1: everything the front does not answer itself goes there. */
  upstreamPort: number;
  /** Slack's Events API path (bolt's `endpoints`). */
  eventsPath: string;
  /** How long a stop waits for open requests before it closes their connections. */
  graceMs: number;
}

/** A signed `event_callback`, acknowledged by the front, for bolt to process. */
export interface HandedOver {
  kind: "event";
  /** The request body as Slack sent it (JSON). */
  body: string;
  /** `x-slack-retry-num` and `x-slack-retry-reason`, as bolt's receiver reads them. */
  retryNum: number | undefined;
  retryReason: string | undefined;
}

export type FromFront =
  | { kind: "listening"; port: number }
  | HandedOver
  | { kind: "log"; level: "warn" | "error"; line: string }
  /** Stopped accepting, every open request answered: nothing more will be handed over. */
  | { kind: "stopped" };

export type ToFront = { kind: "stop" };
