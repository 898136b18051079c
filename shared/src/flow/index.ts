export { ask, run, stop, history, reset, help, runCommand, type Asker, type FlowDeps, type Outcome } from "./flow.ts";
export type { Reply } from "./reply.ts";
export type { ChatSurface, LiveView, PostedRef, StopProgress } from "./surface.ts";
export { answersPrivately, helpEntries, settingsLines } from "./help.ts";
export { audit, decide, guarded, guardOf, helpWithSettings, policy, refusalText, GUARDED_ACTIONS, AUDIT_SHOWN, type Decision, type GuardedAction, type Permit } from "./control.ts";
