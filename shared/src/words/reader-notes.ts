/**
 * The notes Duet adds to a model's answer when it did not run something the
 * model wrote. The Worker's reader writes them; `pnpm eval` reads them back to
 * tell how a model answered, so both take them from here.
 */

/** Shown under a shell code block the model wrote without tags, so nobody thinks it ran. */
export const NOT_RUN_NOTE = "_(not run: Duet only runs commands the model puts in run tags)_";
/** The end of the note after a placeholder (`command`, `cmd`) the model put in tags. */
export const PLACEHOLDER_NOTE = "was not run: it is a placeholder, not a command.";
/** The start of the note when the token limit cut the answer inside a command. */
export const CUT_OFF_NOTE = "The answer was cut off inside a command";
