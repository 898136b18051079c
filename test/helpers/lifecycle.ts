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
