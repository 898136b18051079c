/**
 * The idempotency key of a schedule's run: its id and due time, so an alarm that
 * fires again for the same run joins that turn instead of asking twice. The
 * history reads the schedule back from it, to show the run as the schedule's
 * and not as something a person typed.
 */
export const scheduleRunKey = (scheduleId: string, dueAt: number) => `schedule-${scheduleId}-${dueAt}`;

/** The schedule a turn's key says asked it, or null for a turn a person (or a bot for one) sent. */
export function scheduleOfKey(key: string | null | undefined): string | null {
  const m = key ? /^schedule-([a-z0-9]+)-\d+$/.exec(key) : null;
  return m ? m[1]! : null;
}
