import type { Health } from "@duet/shared/health";
import type { SocketModeReceiver } from "@slack/bolt";

/**
 * Whether the Slack bot can take work, for `GET /healthz`. In HTTP mode that is
 * "started and not stopping" (Slack reaches the bot; the route is served by the
 * same server). In Socket Mode Slack can only reach the bot over its WebSocket,
 * so the bot is healthy only while that connection is open. The Worker's state
 * is not part of it: a restarted bot would not bring a Worker back, and the bot
 * tells people in chat when the Worker cannot be reached.
 */
export class SlackHealth {
  private reason: string | undefined = "starting: not connected to Slack yet";
  private stopping = false;

  /** Follows the Socket Mode client's connection state. */
  watch(client: SocketModeReceiver["client"]): void {
    const down = (reason: string) => () => this.set(reason);
    client.on("connecting", down("connecting to Slack over Socket Mode"));
    client.on("connected", () => this.set(undefined));
    client.on("close", down("the Socket Mode connection to Slack is closed; reconnecting"));
    client.on("reconnecting", down("reconnecting to Slack over Socket Mode"));
    client.on("disconnected", down("disconnected from Slack (Socket Mode)"));
  }

  /** HTTP mode: listening means Slack can reach the bot. */
  listening(): void {
    this.set(undefined);
  }

  /** From the start of a stop on, the bot takes no new work: probes must send traffic elsewhere. */
  stop(): void {
    this.set("stopping: finishing answers in flight");
    this.stopping = true;
  }

  check(): Health {
    return this.reason === undefined ? { ok: true } : { ok: false, reason: this.reason };
  }

  private set(reason: string | undefined): void {
    if (!this.stopping) this.reason = reason;
  }
}
