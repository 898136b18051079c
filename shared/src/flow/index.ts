export { ask, run, history, reset, help, runCommand, type Asker, type FlowDeps, type Outcome } from "./flow.ts";
export type { Reply } from "./reply.ts";
export type { ChatSurface, PostedRef, StopProgress } from "./surface.ts";
export { answersPrivately, helpEntries } from "./help.ts";
