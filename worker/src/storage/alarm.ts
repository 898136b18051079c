/**
 * Arms the Durable Object's one alarm for `at`, unless it is already armed
 * sooner: the room's parts (keep-awake, the outbox, schedules) share it, and
 * each looks again for its own work whenever it fires. An alarm costs no row.
 */
export async function armAlarmBy(storage: DurableObjectStorage, at: number): Promise<void> {
  const current = await storage.getAlarm();
  if (current === null || current > at) await storage.setAlarm(at);
}
