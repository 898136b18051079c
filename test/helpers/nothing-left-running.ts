import { afterAll, afterEach, beforeEach, expect } from "vitest";
import { inTest, stopLeftRunning } from "./left-running.ts";

/**
 * vitest setup file of the projects whose files share a process: after a file's
 * own afterAll hooks (setup files' hooks run last), nothing it started may still
 * run. What is left is stopped here, so it cannot fail a later file, and this file fails naming it.
 */
beforeEach((ctx) => inTest(ctx.task.fullName));
afterEach(() => inTest(""));
afterAll(async () => {
  const left = await stopLeftRunning();
  if (left.length) {
    const file = expect.getState().testPath ?? "this file";
    throw new Error(`${file} left running after its tests: ${left.join("; ")}. Stop each in an afterAll (startedForTests in test/helpers/lifecycle.ts).`);
  }
});
