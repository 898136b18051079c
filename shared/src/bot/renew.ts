/**
 * Shows a "working" indicator now and again every `everyMs` until stopped: a
 * Discord typing indicator and a Slack thread status both expire on their own.
 * Calls never overlap, and a failed one is left to `show` to report. stop() also
 * waits for a call still in flight, so a late renewal cannot land after the
 * answer and show "working" once the work is done.
 */
export function keepRenewing(show: () => Promise<unknown>, everyMs: number): () => Promise<void> {
  let inFlight: Promise<unknown> = Promise.resolve();
  const renew = () => {
    inFlight = inFlight.then(show).catch(() => undefined);
  };
  renew();
  const timer = setInterval(renew, everyMs);
  // Never the reason a process stays up.
  (timer as { unref?: () => void }).unref?.();
  return async () => {
    clearInterval(timer);
    await inFlight;
  };
}
