/**
 * How many test files run at once, across every project in one queue (the root and the Worker's vitest
 * configs both read it). Three on a 2-core machine: most files wait on a Worker or a bot starting, on a
 * lease or on a fake, so two at a time left a core idle for much of a run (docs/testing.md has the
 * figures). DUET_TEST_FILES_AT_ONCE sets it for a bigger or a busier machine.
 */
export function filesAtOnce(env: Record<string, string | undefined> = process.env): number {
  const asked = Number(env.DUET_TEST_FILES_AT_ONCE);
  return Number.isInteger(asked) && asked >= 1 && asked <= 64 ? asked : 3;
}
