/**
 * "Ask Duet" on a message (a Slack message shortcut, a Discord context-menu
 * command): the modal's words and the one line a person gets when it cannot
 * be asked. Slack caps a modal's title at 24 characters.
 */
/** The most of a question given back in one line (Discord's private reply holds 2,000 characters). */
const NOT_KEPT_QUESTION_CHARS = 1_500;

export const ASK_ABOUT_WORDS = {
  command: "Ask Duet",
  modalTitle: "Ask Duet",
  label: "Your question about this message",
  prefill: "Explain this",
  submit: "Ask",
  close: "Cancel",
  empty: "Write a question for Duet (for example: Explain this).",
  tooLong: (length: number, max: number) => `That question is ${length.toLocaleString("en-US")} characters; Duet takes at most ${max.toLocaleString("en-US")} here.`,
  /** The message is gone (deleted) or Duet cannot read where it is (a private channel it is not in). */
  unreadable: "Duet cannot read that message: it may have been deleted, or it is in a conversation Duet is not in (invite Duet there first).",
  /** The message holds no text Duet can quote (only an app's blocks, or nothing). */
  noText: "That message has no text Duet can read, so there is nothing to ask about.",
  /**
   * The message's text was lost while the form was open (the bot restarted and its room could not keep it),
   * and a read now comes without it: the question is given back so it is not lost with it.
   */
  notKept: (question: string) => {
    const q = question.trim();
    const shown = q.length > NOT_KEPT_QUESTION_CHARS ? `${q.slice(0, NOT_KEPT_QUESTION_CHARS)}…` : q;
    return `Duet lost the message you asked about while the form was open, so nothing was asked. Pick Ask Duet on the message again; your question was:\n${shown.replace(/^/gm, "> ")}`;
  },
  /** Asked outside a channel where Duet has no room (a DM between people, a group DM). */
  notHere: "Duet can only answer about messages in channels it is in.",
  /** Discord refused to start a thread on the message (a missing permission, a channel that takes none). */
  threadRefused: "Discord would not let Duet start a thread on that message, so nothing was asked (Duet needs the Create Public Threads permission there).",
  /** Said privately to the asker once the thread the answer goes in exists. */
  answersIn: (where: string) => `Duet answers in ${where}.`,
  /** A Discord thread's name for the answer: the question, cut to Discord's 100 characters. */
  threadName: (question: string) => {
    const name = `Duet: ${question.replace(/\s+/g, " ").trim()}`;
    return name.length > 100 ? `${name.slice(0, 99)}…` : name;
  },
} as const;
