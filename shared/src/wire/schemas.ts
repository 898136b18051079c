import { z } from "zod";
import { sanitizeChatText } from "../text/sanitize.ts";
import {
  APPROVAL_ID_PATTERN,
  CMD_MAX_CHARS,
  IDEMPOTENCY_KEY_MAX_CHARS,
  TEXT_MAX_CHARS,
} from "./limits.ts";
import { actorField, userIdField, userNameField } from "./person-fields.ts";
import { SANDBOX_NETWORKS } from "../sandbox/sandbox-network.ts";
import { deliveryTargetSchema } from "./delivery-target.ts";
import { proposedFactSchema } from "./memory-schemas.ts";

/** Zod schemas for everything that crosses the wire between bots and Worker. */

/** The bot's id for this delivery (event or interaction id): a repeat within 24 hours gets the stored answer. */
const idempotencyKeyField = z
  .string()
  .min(1, "Idempotency key cannot be empty")
  .max(IDEMPOTENCY_KEY_MAX_CHARS, `Idempotency key must be at most ${IDEMPOTENCY_KEY_MAX_CHARS} characters`)
  .optional();

export const messageRequestSchema = z.object({
  // Control and zero-width characters are removed first: text that is only those is empty.
  text: z
    .string({ error: "Text must be a string" })
    .transform(sanitizeChatText)
    .refine((t) => t.length > 0, "Text cannot be empty")
    .refine((t) => t.length <= TEXT_MAX_CHARS, `Text must be at most ${TEXT_MAX_CHARS} characters`),
  userId: userIdField,
  userName: userNameField,
  idempotencyKey: idempotencyKeyField,
  /** Where the answer goes: the room keeps it until a bot confirms it was posted there (needs an idempotency key). */
  deliver: deliveryTargetSchema.optional(),
});
export type MessageRequest = z.input<typeof messageRequestSchema>;

export const execRequestSchema = z.object({
  cmd: z
    .string({ error: "Command must be a string" })
    .trim()
    .min(1, "Command cannot be empty")
    .max(CMD_MAX_CHARS, `Command must be at most ${CMD_MAX_CHARS} characters`),
  userId: userIdField,
  /** A repeated key within 24 hours returns the stored result: the command never runs twice. */
  idempotencyKey: idempotencyKeyField,
});
export type ExecRequest = z.input<typeof execRequestSchema>;

export const duetMessageSchema = z.object({
  role: z.enum(["user", "agent"]),
  userId: z.string().optional(),
  /** The asker's display name, when the bot sent one. */
  userName: z.string().optional(),
  text: z.string(),
  ts: z.number(),
  /** An answer cut short by a stop: what it holds is what was written and run before. */
  stopped: z.boolean().optional(),
  /** A question a schedule asked (its id), not one a person typed. */
  schedule: z.string().optional(),
});
export type DuetMessage = z.infer<typeof duetMessageSchema>;

/** One command's outcome. `exitCode` is null when the outcome is unknown (the Worker died mid-run). */
export const runResultSchema = z.object({
  cmd: z.string(),
  exitCode: z.number().nullable(),
  stdout: z.string(),
  stderr: z.string(),
  truncated: z.boolean(),
  durationMs: z.number(),
  error: z.string().optional(),
});
export type RunResult = z.infer<typeof runResultSchema>;

/** A command the model proposed, waiting for a person until `expiresAt` (ms since the epoch); `requestedBy`: who asked the turn that proposed it. */
export const pendingApprovalSchema = z.object({ id: z.string(), cmd: z.string(), expiresAt: z.number(), requestedBy: z.string().optional() });
export type PendingApproval = z.infer<typeof pendingApprovalSchema>;

/** A workspace file the model attached to its answer (`<attach>path</attach>`): the bots upload it to the thread. */
export const attachmentSchema = z.object({ path: z.string(), bytes: z.number().int(), type: z.string() });
export type Attachment = z.infer<typeof attachmentSchema>;

/** `PUT /api/rooms/:roomId/files/<path>`: where the file landed (an upload's taken name gets a number). */
export const fileWrittenSchema = z.object({ path: z.string(), bytes: z.number().int(), sha256: z.string() });
export type FileWritten = z.infer<typeof fileWrittenSchema>;

/** `GET /api/rooms/:roomId/files?dir=`: a folder's entries; links are listed, never followed. */
export const fileListSchema = z.object({
  entries: z.array(z.object({ path: z.string(), bytes: z.number(), kind: z.enum(["file", "dir", "link", "other"]), modifiedAt: z.string() })),
});
export type FileList = z.infer<typeof fileListSchema>;

export const messageResponseSchema = z.object({
  /** The plain-text answer: explanation plus `Output (cmd):` sections, for clients that show text only. */
  reply: z.string(),
  /** The model's explanation alone (tags removed), for clients that render `runs` themselves. */
  explanation: z.string().optional(),
  /** True when this is a stored answer replayed for a repeated idempotency key: nothing ran again. */
  replayed: z.boolean().optional(),
  messages: z.array(duetMessageSchema),
  runs: z.array(runResultSchema),
  /** Commands the model asked for beyond the per-reply cap; listed, never run. */
  skipped: z.array(z.string()).optional(),
  /** The turn was stopped: the answer is what was written and run before the stop. */
  stopped: z.boolean().optional(),
  /** Under the `approve` run policy: the commands waiting for a person to run or skip them (`runs` is then empty). */
  pending: z.array(pendingApprovalSchema).optional(),
  /** Workspace files the model attached, after its commands ran (a missing one is a note in the reply instead). */
  /** The model asked to propose its change as a pull request (`<pr>title</pr>`); the front end proposes it after the answer. */
  pr: z.object({ title: z.string().optional() }).optional(),
  attachments: z.array(attachmentSchema).optional(),
  /** Facts the model proposed to pin (`<remember>`), each waiting for a person's Pin or Dismiss click. */
  facts: z.array(proposedFactSchema).optional(),
});
export type MessageResponse = z.infer<typeof messageResponseSchema>;

export const execResultSchema = z.object({
  stdout: z.string(),
  stderr: z.string(),
  exitCode: z.number().nullable(),
  success: z.boolean(),
  truncated: z.boolean(),
  durationMs: z.number(),
  /** Why the command did not finish (someone stopped it). */
  error: z.string().optional(),
});
export type ExecResult = z.infer<typeof execResultSchema>;

/** A direct run's result as the command outcome every renderer shows (`success` is derivable). */
export function runOfExec(cmd: string, { stdout, stderr, exitCode, truncated, durationMs, error }: ExecResult): RunResult {
  return { cmd, exitCode, stdout, stderr, truncated, durationMs, ...(error !== undefined ? { error } : {}) };
}

export const execResponseSchema = z.object({
  result: execResultSchema,
  sandboxName: z.string(),
  replayed: z.boolean().optional(),
});
export type ExecResponse = z.infer<typeof execResponseSchema>;

/** `before`: where the page further back starts (`?before=`), absent when none is. */
export const messagesResponseSchema = z.object({ messages: z.array(duetMessageSchema), before: z.number().int().positive().optional() });
export type MessagesResponse = z.infer<typeof messagesResponseSchema>;

export const cleanupResponseSchema = z.object({
  cleaned: z.literal(true),
  roomId: z.string().optional(),
  errors: z.array(z.string()).optional(),
});
export type CleanupResponse = z.infer<typeof cleanupResponseSchema>;

/** GET /api/info: what the Worker is set up to do, for `/duet help` (whether `pip install` will work). */
export const infoResponseSchema = z.object({
  sandbox: z.object({
    provider: z.enum(["cloudflare", "local"]),
    network: z.enum(SANDBOX_NETWORKS),
    allowedHosts: z.array(z.string()),
    deniedHosts: z.array(z.string()),
  }),
});
export type InfoResponse = z.infer<typeof infoResponseSchema>;

/** The one error body every non-2xx answer carries. */
export const errorBodySchema = z.object({
  error: z.string(),
  code: z.string().optional(),
  details: z.record(z.string(), z.array(z.string())).optional(),
  retryable: z.boolean().optional(),
  retryAfterMs: z.number().optional(),
});

/**
 * A live turn as server-sent events (`Accept: text/event-stream` on the message
 * route): `queued` first when the turn waits behind others (only for a client
 * that sends STREAM_EVENTS_HEADER), `text`, `run-start` and `run-end` as they
 * happen, then exactly one of `done` (the JSON answer's body) or `error`.
 */
export const turnStreamEventSchemas = {
  /** The turn was admitted behind `ahead` others in its room (the running one included); sent once, at admission. */
  queued: z.object({ ahead: z.number().int().min(1) }),
  /**
   * Model text as it is written; never a `<run>` tag or part of one. `wordEnd`:
   * a blank follows the text so far (it comes with the next text), so its last
   * word is whole and may be shown.
   */
  text: z.object({ delta: z.string(), wordEnd: z.literal(true).optional() }),
  "run-start": z.object({ index: z.number().int(), cmd: z.string() }),
  /** The command's outcome, its output summaries capped as in `runs`. */
  "run-end": runResultSchema.extend({ index: z.number().int() }),
  done: messageResponseSchema,
  error: z.object({ code: z.string(), message: z.string(), retryable: z.boolean(), retryAfterMs: z.number().optional() }),
} as const;
export type TurnStreamEventName = keyof typeof turnStreamEventSchemas;

/**
 * A client lists here the optional stream events it reads (`queued`): a
 * client's SSE decoder refuses an event it does not know, so the Worker sends
 * them only to clients that ask.
 */
export const STREAM_EVENTS_HEADER = "duet-stream-events";
/**
 * A client that shows answers whole still reads the turn's stream, whose
 * status line says the room took the turn, and sends this header as `whole`:
 * the room asks the model for its answer whole, as for a JSON answer, and the
 * stream carries its text as one `text` event.
 */
export const STREAM_TEXT_HEADER = "duet-stream-text";
export type TurnStreamEvent = {
  [K in TurnStreamEventName]: { event: K; data: z.infer<(typeof turnStreamEventSchemas)[K]> };
}[TurnStreamEventName];

export const stopRequestSchema = z.object({ userId: userIdField });
export type StopRequest = z.input<typeof stopRequestSchema>;
export const stopResponseSchema = z.object({ stopped: z.boolean() });
export type StopResponse = z.infer<typeof stopResponseSchema>;

/** Whether a room runs the model's commands at once (`auto`) or waits for a person to approve each (`approve`). */
export const runPolicySchema = z.enum(["auto", "approve"], { error: "Run policy must be auto or approve" });
export type RunPolicy = z.infer<typeof runPolicySchema>;

export const policyRequestSchema = z.object({ runPolicy: runPolicySchema, userId: actorField });
export type PolicyRequest = z.input<typeof policyRequestSchema>;

/**
 * Where a room's policy comes from: set on the room itself, followed from the
 * channel of a thread room that set none, or DUET_RUN_POLICY when neither did.
 */
export const policySourceSchema = z.enum(["room", "channel", "default"]);
export type PolicySource = z.infer<typeof policySourceSchema>;

export const policyResponseSchema = z.object({ runPolicy: runPolicySchema, source: policySourceSchema.optional() });
export type PolicyResponse = z.infer<typeof policyResponseSchema>;

export const approvalIdSchema = z.string().regex(APPROVAL_ID_PATTERN, "Approval id must be 1-64 characters of A-Z, a-z, 0-9 or '-'");

export const decisionRequestSchema = z.object({
  decision: z.enum(["run", "skip"], { error: "Decision must be run or skip" }),
  userId: actorField,
  /** False: refuse (403 own_proposal) when `userId` asked the turn that proposed the command (DUET_APPROVE_OWN=no). Absent: allowed. */
  approveOwn: z.boolean({ error: "approveOwn must be true or false" }).optional(),
});
export type DecisionRequest = z.input<typeof decisionRequestSchema>;

export const decidedApprovalSchema = pendingApprovalSchema.extend({
  decision: z.enum(["run", "skip"]),
  decidedBy: z.string(),
  decidedAt: z.number(),
});
export type DecidedApproval = z.infer<typeof decidedApprovalSchema>;

/** A decision's answer: `run` is the command's result when it was run. */
export const decisionResponseSchema = z.object({ approval: decidedApprovalSchema, run: runResultSchema.optional() });
export type DecisionResponse = z.infer<typeof decisionResponseSchema>;

export const auditKindSchema = z.enum(["auto", "approved", "skipped", "expired", "direct", "policy", "model", "reset", "scheduled", "unscheduled", "scheduled-run", "repo", "repo-removed", "remember", "forget", "pr-proposed", "pr-opened", "pr-skipped", "pr-merged", "pr-closed", "tools-added", "tools-removed"]);
export type AuditKind = z.infer<typeof auditKindSchema>;

/** One audited event: a command (who asked, who decided, how it ended), an approval nobody decided in time, a policy change or a reset. */
export const auditEntrySchema = z.object({
  at: z.number(),
  kind: auditKindSchema,
  cmd: z.string().optional(),
  requestedBy: z.string().optional(),
  decidedBy: z.string().optional(),
  exitCode: z.number().nullable().optional(),
  durationMs: z.number().optional(),
  /** Set when someone stopped the command while it ran; `stoppedBy` when they said who they were. */
  stopped: z.literal(true).optional(),
  stoppedBy: z.string().optional(),
  /** For `expired` entries: when the approval ran out (`at` is when the room noticed). */
  expiresAt: z.number().optional(),
  /** For `policy` entries: the policy set. */
  runPolicy: runPolicySchema.optional(),
  /** For schedule entries: which schedule, when it runs (as typed) and what it asks. */
  scheduleId: z.string().optional(),
  when: z.string().optional(),
  ask: z.string().optional(),
  /** For `model` entries: the model chosen. */
  model: z.string().optional(),
  /** For `repo` and `repo-removed` entries: the repository (owner/name) linked or unlinked, and the branch named (none: its default). */
  repo: z.string().optional(),
  branch: z.string().optional(),
  /**
   * For `pr-proposed` and `pr-opened` entries (with `repo` and `branch`, the `duet/…` branch): the pull request's title, and its address once opened.
   * `pr-merged` and `pr-closed` (GitHub said so) carry `repo`, `branch`, `url`, and the GitHub login of who merged or closed it as `decidedBy`.
   */
  title: z.string().optional(),
  url: z.string().optional(),
  /** For `remember` and `forget` entries: the fact pinned or unpinned. */
  fact: z.string().optional(),
  /** For `tools-added` and `tools-removed` entries: the MCP server added to the workspace (with its address, as `url`) or removed, from this room. */
  server: z.string().optional(),
});
export type AuditEntry = z.infer<typeof auditEntrySchema>;

export const auditResponseSchema = z.object({ entries: z.array(auditEntrySchema) });
export type AuditResponse = z.infer<typeof auditResponseSchema>;

/** A room's model: one of DUET_MODELS, by name. */
export const modelRequestSchema = z.object({
  model: z.string({ error: "Model must be a string" }).trim().min(1, "Model cannot be empty").max(200, "Model must be at most 200 characters"),
  userId: actorField,
});
export type ModelRequest = z.input<typeof modelRequestSchema>;

/** The model a room's turns use, where that comes from (as for the run policy), and the models it may switch to. */
export const modelResponseSchema = z.object({ model: z.string(), source: policySourceSchema, choices: z.array(z.string()) });
export type ModelResponse = z.infer<typeof modelResponseSchema>;

/** One person's use of one model on one day; token counts null when the provider reported none for any of those turns. */
export const usageRowSchema = z.object({
  userId: z.string().nullable(),
  userName: z.string().optional(),
  model: z.string(),
  inputTokens: z.number().nullable(),
  outputTokens: z.number().nullable(),
  turns: z.number(),
  /** Turns whose provider reported no token counts: not in the figures, and not counted as zero. */
  unreported: z.number().optional(),
  /** What the priced turns cost, in US dollars; absent when none was priced. */
  costUsd: z.number().optional(),
  /** Turns with token counts but no price for their model (DUET_MODELS): not in the cost. */
  unpriced: z.number().optional(),
});
export type UsageRow = z.infer<typeof usageRowSchema>;

/** A daily budget (tokens, or US dollars for the money budgets): its limit, what is used today and left; `where` says what a person's counts (e.g. "across this workspace's rooms"). */
export const budgetSchema = z.object({ limit: z.number(), used: z.number().optional(), left: z.number().optional(), where: z.string().optional() });
export type Budget = z.infer<typeof budgetSchema>;

/** A room's model usage (with its thread rooms'), newest day first, the last 7 UTC days, and its budgets. */
export const usageResponseSchema = z.object({
  days: z.array(z.object({ date: z.string(), rows: z.array(usageRowSchema) })),
  budgets: z.object({ room: budgetSchema.optional(), user: budgetSchema.optional(), roomUsd: budgetSchema.optional(), userUsd: budgetSchema.optional() }),
  /** When today's budgets reset (ms since the epoch, the next 00:00 UTC). */
  resetsAt: z.number(),
});
export type UsageResponse = z.infer<typeof usageResponseSchema>;
