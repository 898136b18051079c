/**
 * What Duet says when it joins: one message, what it is and how to use it. The
 * two platforms differ in how one reaches Duet and what a room is, so each has
 * its lines; the bot adds only its emoji in front.
 */
export const WELCOME_LINES = {
  slack: [
    "Hi, I'm Duet, an AI pair programmer for this channel.",
    "Mention me with a question (`@Duet how do I find the largest files here?`) and I answer in a thread, running the commands I suggest in this channel's own sandbox.",
    "Everyone here shares the conversation and the sandbox. `/duet help` lists the commands; archiving the channel deletes both.",
  ],
  discord: [
    "Hi, I'm Duet, an AI pair programmer for your channels.",
    "Use `/duet ask` or mention me (`@Duet how do I find the largest files here?`) and I answer, running the commands I suggest in that channel's own sandbox. Everyone in a channel shares its conversation and sandbox; a thread is its own room.",
    "`/duet help` lists the commands; deleting a channel deletes its room and sandbox.",
  ],
} as const;
