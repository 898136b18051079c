/**
 * What help says on each chat beyond the command list: how else to reach
 * Duet there, and what a room is. `mention` is how the platform marks up the
 * example (`@Duet` _question_), the same words on both.
 */
export const HELP_MORE = {
  slack: ["You can also mention Duet (`@Duet` _question_) in a channel or a thread, or send it a direct message; it answers in the thread."],
  discord: [
    "• `@Duet` _text_: ask in a channel or a thread; Duet replies to your message",
    "",
    "Each text channel is one room; each thread is a room of its own. Archiving or deleting a thread, or deleting a channel, deletes its room.",
  ],
} as const;
