export { ask, run, stop, history, reset, help, runCommand } from "./flow.ts";
export { GUARDED_ACTIONS, type Asker, type FlowDeps, type GuardedAction, type Outcome, type Permit } from "./types.ts";
export type { Reply } from "./reply.ts";
export { approveList, approveOwnVar } from "./access-config.ts";
export type { ChatSurface, LiveView, PostedRef, StopProgress } from "./surface.ts";
export { answersPrivately, helpEntries, settingsLines } from "./help.ts";
export { audit, decide, guarded, guardOf, helpWithSettings, policy, refusalText, AUDIT_SHOWN, type Decision } from "./control.ts";
export { stopClick, type StopClick } from "./stop-click.ts";
export { model, usage } from "./settings.ts";
