/**
 * The few words a chat shows around an answer besides the answer itself:
 * notification text, where the rest of a long answer went, who asked or ran
 * what above a slash command's reply, and the placeholder while Duet works.
 * `who` is already the platform's mention; `cmd` already escaped for it.
 */
export const ANSWER_NOTES = {
  /** A notification for an answer with no words of its own: what it did. */
  ranOne: (cmd: string) => `Duet ran ${cmd}`,
  ranMany: (count: number) => `Duet ran ${count} commands`,
  answered: "Duet answered",
  /** The answer did not fit one message; the whole of it is in `file`. */
  longerThanMessage: (platform: string, file: string, where: string) => `The answer is longer than a ${platform} message; all of it is in ${file} ${where}.`,
  fullAnswerTitle: "Duet's full answer",
  ranInSandbox: (who: string) => `${who} ran a command in this channel's sandbox`,
  asked: (who: string, question: string) => `${who} asked: ${question}`,
  /** Shown where the answer will be, until its first words arrive. */
  working: "Duet is working on it…",
  /** A thread status, after the app's name ("Duet is working on it…"). */
  workingStatus: "is working on it…",
  moreFiles: "More output files:",
  noOutput: "(no output)",
  fullOutputIn: (file: string) => `full output in ${file}`,
  /** Under a command whose output did not fit; `where` is "in this thread" or "in this channel". */
  fullOutputAt: (file: string, where: string) => `Full output: ${file} ${where}.`,
  /** A command's reply posted in the channel because the platform's reply window closed. */
  lateAnswer: (who: string, command: string) => `${who} here is the answer to your ${command} (it took longer than Discord lets a command reply):`,
  /** More proposed commands than a message's buttons allow. */
  noButtonsAfter: (shown: number, perMessage: number) => `Commands after ${shown} have no buttons (Discord allows ${perMessage} a message): ask again once these are decided.`,
} as const;

/** Who may do a guarded thing on Discord, for a refusal ("Only members with the @Ops role may …"). */
export const DISCORD_WHO_MAY = {
  role: (role: string) => `members with the ${role} role`,
  manageChannels: "members with the Manage Channels permission",
} as const;
