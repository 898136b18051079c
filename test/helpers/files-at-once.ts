/**
 * How many test files run at once (the root and the Worker's vitest configs both read it). Four on a
 * 2-core machine: most files wait on a Worker or a bot starting, on a lease or on a fake, so two or three
 * at a time left a core idle for much of a run (docs/testing.md has the figures). DUET_TEST_FILES_AT_ONCE
 * sets it for a bigger or a busier machine.
 */
export function filesAtOnce(env: Record<string, string | undefined> = process.env): number {
  return atOnce(env.DUET_TEST_FILES_AT_ONCE, 4);
}

/**
 * How many of the `chat` project's files run at once, in a group of their own before the rest: the Slack,
 * Discord and trace files wait most of all (a channel's pace, edits a second and more apart, leases), so
 * more of them run at once than of the others. Its files share their processes, so each more at once costs
 * one more process's imports, not one per file. The project alone: five at a time 156 s and 215 CPU s,
 * seven 138 s and 230, eight 128 s and 225, nine 128 s and 234 (docs/testing.md). DUET_TEST_CHAT_FILES_AT_ONCE
 * sets it.
 */
export function chatFilesAtOnce(env: Record<string, string | undefined> = process.env): number {
  return atOnce(env.DUET_TEST_CHAT_FILES_AT_ONCE, 8);
}

function atOnce(raw: string | undefined, fallback: number): number {
  const asked = Number(raw);
  return Number.isInteger(asked) && asked >= 1 && asked <= 64 ? asked : fallback;
}
