export { CUT_OFF_NOTE, NOT_RUN_NOTE, PLACEHOLDER_NOTE } from "./reader-notes.ts";
export {
  decidedText,
  historySnippet,
  historyTitle,
  HISTORY_MESSAGE_CHARS,
  HISTORY_SHOWN,
  NO_HISTORY,
  NOT_A_PROPOSAL,
  NOTHING_TO_SAY,
  notRunNote,
  notRunText,
  OWN_PROPOSAL,
  resetText,
  STOPPED_NOTE,
} from "./notes.ts";
export { STOP_WORDS, type StopTurn } from "./stop.ts";
export { EMPTY_DM_HINT, EMPTY_MENTION_HINT, EMPTY_QUESTION_HINT, HELP_INTRO, WORKING_TEXT } from "./hints.ts";
export { fullLineNote, queuedNote } from "./queue.ts";
export { WORKSPACE_NOT_SAVED } from "./workspace-notes.ts";
export { describeModel, describeUsage, modelLine } from "./settings.ts";
export { PR_WORDS, prDecidedLine, prDiffBlock, prHint, prOpenedText, prProposalHead, prProposedNotice } from "./pr.ts";
export { prClosedText, prCommentAsk, prCommentNote, prMergedText, prReplyText, type CommentPlace } from "./pr-notes.ts";
export { describeTools, describeToolsEvent, describeToolsReply, TOOLS_WORDS, type ToolsEvent, type ToolsListing } from "./tools.ts";
export { archivedText, checkedOutText, checkoutFailedText, describeRepo, describeRepoReply, GITHUB_NOT_CONFIGURED, notInstalledText, REPO_WORDS, type RepoEvent } from "./repo.ts";
export {
  askNeedsQuestion,
  CHAT_SPELLING,
  DISCORD_DM_ANSWER,
  notModelName,
  notScheduleId,
  runNeedsCommand,
  scheduleUsage,
  type Spelling,
  unknownCommand,
  unknownPolicy,
  unscheduleNeedsId,
} from "./usage.ts";
export { WELCOME_LINES } from "./welcome.ts";
export { HELP_MORE } from "./chat-help.ts";
export { ANSWER_NOTES, DISCORD_WHO_MAY } from "./answer-notes.ts";
export { DISCORD_COMMAND_WORDS } from "./discord-commands.ts";
export { INSTALL_WORDS } from "./install.ts";
export { ANSWER_COMING_NOTE } from "./coming.ts";
export {
  describeForgotten,
  describeMemory,
  describePinned,
  factDecidedLine,
  forgetNeedsNumber,
  memoryText,
  proposedFactsHint,
  rememberNeedsFact,
  RESET_CHOICES,
  resetCancelled,
  resetFactsNote,
  resetQuestion,
  MEMORY_BUTTON_UNKNOWN,
  SUMMARY_USAGE_NAME,
} from "./memory.ts";
export { HOME_WORDS, homeModelsLine, homeRoomLines, homeUsageLines } from "./home.ts";
export { PANE_WORDS, type SuggestedPrompt } from "./pane.ts";
