import { afterAll, beforeAll } from "vitest";

/**
 * Starts `start()` once before the tests of the file (or of the describe block
 * it is called in), hands what it started to `take`, and stops it after them,
 * even when a test failed. The usual pattern: `let a, b; startedForTests(startX, (x) => ({ a, b } = x));`
 */
export function startedForTests<T extends { stop(): Promise<void> }>(start: () => Promise<T>, take: (started: T) => void): void {
  let started: T | undefined;
  beforeAll(async () => {
    started = await start();
    take(started);
  });
  afterAll(async () => {
    await started?.stop();
  });
}

/**
 * Starts `fake` (a server the setup is pointed at), then `setup` with it; the
 * result stops both. A setup that fails to start closes the fake first, so a
 * failed start leaves no listener behind.
 */
export async function startedBeside<F extends { close(): Promise<void> }, S extends { stop(): Promise<void> }>(
  fake: () => Promise<F>,
  setup: (fake: F) => Promise<S>,
): Promise<S & { fake: F }> {
  const started = await fake();
  const s = await setup(started).catch(async (err) => {
    await started.close();
    throw err;
  });
  const stopSetup = s.stop.bind(s);
  return Object.assign(s, { fake: started, stop: async () => (await stopSetup(), await started.close()) });
}
