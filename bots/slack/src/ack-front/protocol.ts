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
  /** Milliseconds from the request's arrival to its hand-over (its 200 follows at once): the ack's time, for the metrics. */
  spentMs: number;
}

/**
 * A signed slash command or interaction (a form body), for bolt to process.
 * Its HTTP request stays open in the front until the main thread answers it
 * (with what bolt's receiver would write for the handler's ack) under the same id.
 */
export interface HandedRequest {
  kind: "request";
  id: number;
  /** The form body as Slack sent it. */
  body: string;
  retryNum: number | undefined;
  retryReason: string | undefined;
  /** Milliseconds from the request's arrival to its hand-over: the front's part of the ack's time. */
  spentMs: number;
}

/** An HTTP answer as the front writes it. */
export interface Answer {
  status: number;
  /** Unset for a text body, as bolt leaves it. */
  contentType?: string;
  body: string;
}

export type FromFront =
  | { kind: "listening"; port: number }
  | HandedOver
  | HandedRequest
  | { kind: "log"; level: "warn" | "error"; line: string }
  /** Stopped accepting, every open request answered: nothing more will be handed over. */
  | { kind: "stopped" };

export type ToFront = { kind: "stop" } | { kind: "answer"; id: number; answer: Answer };
