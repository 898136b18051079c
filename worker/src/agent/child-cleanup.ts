/** Child rooms cleaned at once: a workspace room may hold thousands, and each clean-up waits on a sandbox. */
export const CHILD_CLEANUPS_AT_ONCE = 6;

/**
 * Cleans every child room, a few at a time, and says which failed. `cleanOne`
 * returns the child's own errors (none: it is clean) or throws.
 */
export async function cleanChildren(children: string[], cleanOne: (child: string) => Promise<string[]>): Promise<Map<string, string[]>> {
  const failed = new Map<string, string[]>();
  let next = 0;
  const worker = async () => {
    while (next < children.length) {
      const child = children[next++];
      try {
        const errors = await cleanOne(child);
        if (errors.length) failed.set(child, errors);
      } catch (err) {
        failed.set(child, [(err as Error).message]);
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(CHILD_CLEANUPS_AT_ONCE, children.length) }, worker));
  return failed;
}
