export { ask, run, history, reset, help, runCommand, type Asker, type FlowDeps, type Outcome } from "./flow.ts";
export type { Reply } from "./reply.ts";
export type { ChatSurface, PostedRef, StopProgress } from "./surface.ts";
export { COMMAND_ORDER, COMMAND_PURPOSES, answersPrivately, helpEntries, type CommandKind } from "./help.ts";
