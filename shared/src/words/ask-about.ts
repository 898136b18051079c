/**
 * "Ask Duet" on a message (a Slack message shortcut, a Discord context-menu
 * command): the modal's words and the one line a person gets when it cannot
 * be asked. Slack caps a modal's title at 24 characters.
 */
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
  /** Asked outside a channel where Duet has no room (a DM between people, a group DM). */
  notHere: "Duet can only answer about messages in channels it is in.",
} as const;
