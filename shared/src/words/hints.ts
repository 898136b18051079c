/**
 * What a front end says before there is an answer: a hint for a question that
 * came empty, and the placeholder while a command works. Slack and Discord are
 * both reached by `@Duet` and `/duet`, so one sentence serves both; a front end
 * adds only its markup (an emoji) around them.
 */

/** The first line of help on Slack and Discord: what Duet is and what a channel shares. */
export const HELP_INTRO = "Duet is an AI pair programmer for this channel. Everyone here shares one conversation and one sandbox.";

/** A question that was empty after cleaning, where no front end gave a better hint. */
export const EMPTY_QUESTION_HINT = "Ask Duet something: the question was empty.";

/** A mention with nothing after it. */
export const EMPTY_MENTION_HINT = "Hi! Ask me something after the mention, e.g. `@Duet what's in this repo?`, or use `/duet help` for the commands.";

/** A direct message to Duet with nothing in it. */
export const EMPTY_DM_HINT = "Hi! Ask me something, e.g. `what's in this repo?`, or use `/duet help` for the commands.";

/** Shown at once while a command works, before its answer replaces it. */
export const WORKING_TEXT = {
  ask: "Duet is thinking…",
  run: "Running in this channel's sandbox…",
} as const;
