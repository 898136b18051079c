/**
 * A room keeps the name it is addressed by (its room id) in its own storage.
 * Local workerd (1.20260426, what wrangler 4.86 on Node 20 brings) fires an
 * alarm persisted before a Worker restart on an id without its name, and the
 * agents SDK (0.32) will not start an instance it cannot name: it reads this
 * key, its fallback for objects named before ids carried names, when the id
 * has none. A request by name that arrives later reaches that same instance,
 * so a room woken nameless without this key stays broken until it is evicted.
 */
const NAME_KEY = "__ps_name";

/** Stores the name the room was addressed by; a write only the first time (and never for a nameless wake). */
export async function rememberName(storage: DurableObjectStorage, name: string | undefined): Promise<void> {
  if (name === undefined || (await storage.get<string>(NAME_KEY)) === name) return;
  await storage.put(NAME_KEY, name);
}

/** Whether an instance woken with `name` (the id's, if it has one) can tell which room it is. */
export async function knowsName(storage: DurableObjectStorage, name: string | undefined): Promise<boolean> {
  return name !== undefined || (await storage.get<string>(NAME_KEY)) !== undefined;
}

/** `ctx.abort` with the option workerd takes and @cloudflare/workers-types does not declare yet. */
interface Resettable {
  abort(reason: string, opts: { retryAlarm: boolean }): void;
}

/**
 * An alarm armed before rooms stored their name woke an instance that cannot
 * tell which room it is. It clears the alarm (flushed, as the reset drops
 * writes not yet on disk) and resets the instance without a retry, so the
 * room's next request by name gets a named instance, which resumes the room.
 */
export async function dropNamelessAlarm(ctx: DurableObjectState): Promise<void> {
  console.warn("a room's alarm fired on an instance without the room's name; the room resumes on its next request");
  await ctx.storage.deleteAlarm();
  await ctx.storage.sync();
  (ctx as unknown as Resettable).abort("a room's alarm fired without the room's name", { retryAlarm: false });
}
