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
export { describeModel, describeUsage, modelLine } from "./settings.ts";
