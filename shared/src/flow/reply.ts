import type { MemoryResponse, PinnedFact } from "../wire/memory-schemas.ts";
import type { ScheduleView } from "../wire/schedule-schemas.ts";
import type { AuditEntry, DecidedApproval, DuetMessage, ExecResult, MessageResponse, PolicySource, RunPolicy, UsageResponse } from "../wire/schemas.ts";
import type { ErrorCode } from "../wire/errors.ts";
import type { RepoResponse } from "../wire/repo-schemas.ts";
import type { RepoEvent } from "../words/repo.ts";
import type { ToolsEvent, ToolsListing } from "../words/tools.ts";
import type { PrOpened, PrProposal } from "../wire/pr-schemas.ts";

/**
 * What the flow hands a front end to show, before any platform's markup: each
 * front end renders a Reply in its own layout (Slack Block Kit, Discord
 * messages, terminal text) and decides what becomes a file.
 */
export type Reply =
  /** The model's answer to `question`, asked by `user`. */
  | { kind: "answer"; answer: MessageResponse; question: string; user: string }
  /** A command `user` ran in the sandbox directly. */
  | { kind: "ran"; cmd: string; result: ExecResult; user: string }
  | { kind: "history"; messages: DuetMessage[] }
  /**
   * `errors` lists the parts of the room that could not be removed (a retry removes them);
   * `facts`: what became of the pinned facts, when the person chose (absent: the room had none).
   */
  | { kind: "reset"; user: string; errors: string[]; facts?: "kept" | "wiped" }
  /** `user` asked to reset a room that keeps `facts` pinned facts: Keep / Reset everything / Cancel buttons, naming `resetAt` (see MemoryResponse). */
  | { kind: "reset-ask"; user: string; facts: number; summary: boolean; resetAt: number }
  /** `user` clicked Cancel on a reset's question: nothing changed. */
  | { kind: "reset-cancelled"; user: string }
  /** `user` pinned (`n`: its number; `already`: it was pinned before) or dismissed the fact the model proposed as `id`. */
  | { kind: "fact-decided"; id: string; decision: "pin" | "dismiss"; fact: string; user: string; n?: number; already?: boolean }
  /**
   * The commands, after `problem` when the person typed something Duet did not understand;
   * `network` (describeNetwork's sentence) and `runPolicy` when the Worker said them.
   */
  | { kind: "help"; problem?: string; network?: string; runPolicy?: RunPolicy; model?: string }
  /** The room's model and the choices: as it is (`source` says where it comes from), or as `setBy` just switched it. */
  | { kind: "model"; model: string; choices: string[]; source?: PolicySource; setBy?: string }
  /** The room's repository: as it is, or what `event` just did to it (linked, unlinked, nothing to unlink). */
  | { kind: "repo"; repo: RepoResponse; event?: RepoEvent }
  /** The workspace's tool servers and which are on here (`listing`), or what `event` just did to them. */
  | { kind: "tools"; listing?: ToolsListing; event?: ToolsEvent }
  /** The change in the room's checkout proposed as a pull request, with Open and Skip for `room`'s proposal. */
  | { kind: "pr-proposal"; proposal: PrProposal; room: string }
  /** A proposal's message once someone opened (`opened`: the pull request's link) or skipped it: its buttons give way to what became of it. */
  | { kind: "pr-decided"; proposalId: string; by: string; opened?: PrOpened }
  /** `/duet pr` where no repository is linked: what links one. */
  | { kind: "pr-no-repo" }
  /** The room's model usage and budgets, for the asker only. */
  | { kind: "usage"; usage: UsageResponse }
  /** The room's run policy: as it is (`setBy` absent; `source` says where it comes from), or as `setBy` just set it. */
  | { kind: "policy"; runPolicy: RunPolicy; setBy?: string; source?: PolicySource }
  /** The room's latest audited events, oldest first; `total` counts all the Worker returned. */
  | { kind: "audit"; entries: AuditEntry[]; total: number }
  /**
   * A proposed command run or skipped: the message that proposed it shows the
   * decision in place of its Run and Skip buttons (its other commands unchanged).
   */
  | { kind: "decided"; approval: DecidedApproval }
  /** What the person may not do here and who may; only they see it. */
  | { kind: "refused"; text: string }
  /** `user` scheduled an ask; everyone in the channel sees it, since its answers will appear there. */
  | { kind: "scheduled"; schedule: ScheduleView; user: string }
  /** The room's schedules, soonest first (only the asker sees the list). */
  | { kind: "schedules"; schedules: ScheduleView[] }
  /** `user` removed a schedule. */
  | { kind: "unscheduled"; schedule: ScheduleView; user: string }
  /** The room's pinned facts: as they are, or after `user` pinned (`already`: it was pinned before) or unpinned one. */
  | { kind: "memory"; memory: MemoryResponse; pinned?: { fact: PinnedFact; already: boolean; user: string }; forgotten?: { fact: PinnedFact; user: string } }
  /** A nudge that is no failure, e.g. what to type after an empty mention. */
  | { kind: "hint"; text: string }
  /** A failure in words a person can act on (describeForUser), with its code for front ends that add advice. */
  | { kind: "error"; text: string; code?: ErrorCode };

/** The room's pinned facts, as every front end renders them (words/memory.ts). */
export type MemoryReply = Extract<Reply, { kind: "memory" }>;
