/** Why a turn ended early: someone in the room stopped it. Thrown into the model stream and the command. */
export class TurnStopped extends Error {
  constructor(readonly by?: string) {
    super(by ? `stopped by ${by}` : "stopped");
    this.name = "TurnStopped";
  }
}

/**
 * A room's stop button: the turn that runs holds a signal from here, and `stop`
 * aborts it (the model request is cancelled, a running command killed, no
 * further command started). One turn runs at a time per room, so one slot.
 */
export class StopSwitch {
  private running: { turnId: string; controller: AbortController } | null = null;

  /** The signal the turn `turnId` watches; it replaces any earlier one (that turn has ended). */
  begin(turnId: string): AbortSignal {
    this.running = { turnId, controller: new AbortController() };
    return this.running.controller.signal;
  }

  end(turnId: string): void {
    if (this.running?.turnId === turnId) this.running = null;
  }

  /** True when a turn was running and is now stopping; false when there was nothing to stop. */
  stop(by?: string): boolean {
    const r = this.running;
    if (!r || r.controller.signal.aborted) return false;
    r.controller.abort(new TurnStopped(by));
    return true;
  }
}
