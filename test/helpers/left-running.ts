/**
 * What a test file started that runs on its own (a bot, a Worker) until it is
 * stopped. Files of the `chat` and `stack` projects share a process (vitest.config.ts), so
 * a bot a file forgot keeps calling its fake Slack or Discord after that fake
 * closed, and its failures land in whichever file runs next; the project's
 * setup file (nothing-left-running.ts) stops what a file left and fails it.
 */

interface Running {
  what: string;
  /** The test that started it ("" for a file's hooks). */
  startedIn: string;
  stop(): Promise<void>;
}

const running = new Set<Running>();
/** The test running now, told by the setup file (none outside vitest: benchmarks start stacks too). */
let currentTest = "";

export function inTest(name: string): void {
  currentTest = name;
}

/** Records `thing` as running until its stop() is called; returns it with that stop. */
export function runningUntilStopped<T extends { stop(): Promise<void> }>(what: string, thing: T): T {
  const entry: Running = { what, startedIn: currentTest, stop: () => thing.stop() };
  running.add(entry);
  const stop = thing.stop.bind(thing);
  thing.stop = () => (running.delete(entry), stop());
  return thing;
}

/** Stops everything still running, newest first, and says what it was and which test started it. */
export async function stopLeftRunning(): Promise<string[]> {
  const left = [...running].reverse();
  running.clear();
  for (const entry of left) await entry.stop().catch(() => {});
  return left.map((e) => `${e.what}${e.startedIn ? ` (started in "${e.startedIn}")` : ""}`);
}
