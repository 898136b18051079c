import { type LiveAnswer, PANE_WORDS, type StopProgress } from "@duet/shared";
import type { Logger } from "@slack/bolt";
import { STATUS_RENEW_MS } from "../feedback.ts";
import type { TurnStatus } from "../surfaces.ts";

/**
 * The status under an agent-pane conversation while one turn works there:
 * "is thinking…" until a command runs, then the command by name, then thinking
 * again, and nothing once the turn ends. Slack clears a status when the app
 * posts in the thread and drops it after two minutes, so a command's status is
 * set again when it starts and the shown one is renewed while the turn works.
 * Calls go out one at a time, in order, so the clear at the end always lands
 * last; none of them ever delays or breaks the answer.
 */

export interface StatusArgs {
  status: string;
  loading_messages?: string[];
}

export class PaneStatus implements TurnStatus {
  private shown: StatusArgs | null = null;
  private calls: Promise<void> = Promise.resolve();
  private over = false;
  private started = false;
  private renewal: ReturnType<typeof setInterval> | undefined;

  constructor(
    /** bolt's setStatus for this conversation. */
    private readonly set: (args: StatusArgs) => Promise<unknown>,
    private readonly logger: Logger,
    private readonly renewMs = STATUS_RENEW_MS,
    /** The room took this turn: its answer has begun (the first state of the live answer). */
    private readonly onStarted: () => void = () => {},
  ) {}

  show(): StopProgress {
    this.say({ status: PANE_WORDS.thinking, loading_messages: [...PANE_WORDS.thinkingLoading] });
    // The flow stops its progress once the answer shows; the answer's commands set the status from there.
    return async () => this.stopRenewing();
  }

  follow(answer: LiveAnswer): void {
    if (!this.started) {
      this.started = true;
      this.onStarted();
    }
    const running = answer.runs.findLast((r) => r.state === "running");
    if (running) this.say({ status: PANE_WORDS.running(running.cmd), loading_messages: [PANE_WORDS.running(running.cmd)] });
    else this.say({ status: PANE_WORDS.thinking, loading_messages: [...PANE_WORDS.thinkingLoading] });
  }

  async clear(): Promise<void> {
    if (!this.over) {
      this.over = true;
      this.stopRenewing();
      this.send({ status: "" });
    }
    await this.calls;
  }

  /** Shows `args` unless it is what shows already; keeps it shown until the turn ends. */
  private say(args: StatusArgs): void {
    if (this.over) return;
    if (this.shown?.status !== args.status) {
      this.shown = args;
      this.send(args);
    }
    this.renewal ??= setInterval(() => {
      if (this.shown && !this.over) this.send(this.shown);
    }, this.renewMs);
    // Never the reason a process stays up.
    (this.renewal as { unref?: () => void }).unref?.();
  }

  private stopRenewing(): void {
    clearInterval(this.renewal);
    this.renewal = undefined;
  }

  private send(args: StatusArgs): void {
    this.calls = this.calls.then(() => this.set(args)).then(
      () => undefined,
      (err) => this.logger.debug(`assistant.threads.setStatus failed in the agent pane: ${(err as Error)?.message ?? err}`),
    );
  }
}
