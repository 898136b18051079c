export * from "./wire/limits.ts";
export * from "./wire/schemas.ts";
export * from "./wire/delivery.ts";
export * from "./wire/claims.ts";
export * from "./wire/pace.ts";
export * from "./wire/room-id.ts";
export * from "./wire/errors.ts";
export * from "./client/client.ts";
export { openPrivateKeyAt, redactSecrets } from "./format/redact.ts";
export { redactAnswer } from "./format/redact-answer.ts";
export { openVariantAt } from "./format/secret-variants.ts";
export { openShapeAt } from "./format/split-tokens.ts";
export { endBeforeBlank } from "./format/blank-follows.ts";
export { linkHost, MARKDOWN_LINK } from "./format/links.ts";
export { dollars } from "./format/money.ts";
export { cleanModelText, outsideCode } from "./format/model-text.ts";
export { codeBlock, escapeFences } from "./format/fence.ts";
export { chunkMessage } from "./format/chunk.ts";
export { combineOutput, headTail, headTailLines } from "./format/output.ts";
export { describeRun } from "./format/run-view.ts";
export { parseDuetCommand, readModel, readRunPolicy, sanitizeChatText, forgetCommand, mentionedFact, rememberCommand, scheduleCommand, unscheduleCommand, type DuetCommand } from "./commands/commands.ts";
export * from "./flow/index.ts";
export { explanationOf } from "./format/answer.ts";
export { ConfigError, idListVar, intVar, numberVar, optionalIntVar, optionalPort, optionalText, parseEnv } from "./config/env-config.ts";
export { MODEL_PROVIDERS, modelSettingFields, readModelList, type ModelPrice, type ModelProviderName, type OfferedModel } from "./settings/model-settings.ts";
export { WORKER_SETTING_VARS, workerSettingsSchema, type WorkerSettingName } from "./settings/worker-settings.ts";
export { RecentIds, DEDUPE_TTL_MS } from "./bot/recent-ids.ts";
export { DeliveryClaims, newClaimant } from "./outbox/delivery-claims.ts";
export { keepRenewing } from "./bot/renew.ts";
export { InFlight, DRAIN_MS } from "./bot/in-flight.ts";
export { AskOrder, ASK_ORDER_HEADER, ASK_ORDER_WAIT_MAX_MS, type AskPlace, type AskTicket, parseAskTicket } from "./bot/ask-order.ts";
export { AnswersInFlight, type AnswersInFlightOptions } from "./bot/answers-in-flight.ts";
export { replicaPosting, WorkerPaceSlots } from "./outbox/pace-slots.ts";
export {
  SANDBOX_NETWORKS,
  DEFAULT_SANDBOX_NETWORK,
  sandboxNetworkFields,
  networkPolicyOf,
  type SandboxNetwork,
  type NetworkPolicy,
} from "./sandbox/sandbox-network.ts";
export { describeNetwork } from "./format/network.ts";
export { checkWorkerToken, type TokenCheck } from "./client/worker-token.ts";
export { SseDecoder, SseFrames, encodeSseEvent, SSE_HEARTBEAT, type SseFrame } from "./wire/sse.ts";
export { auditTitle, describeAuditEntry, describeDecision, describePolicy, proposalHint, shortCommand, type Naming } from "./format/control.ts";
export * from "./live/index.ts";
export * from "./words/index.ts";
export { LatestShown, LATEST_SHOWN_KEPT } from "./bot/latest-shown.ts";
export { checkWorkspacePath, invalidPathError, workspacePathOrThrow, workspaceFileOrThrow, parentOf, baseOf, WORKSPACE_PATH_MAX_BYTES, type CheckedPath } from "./files/workspace-path.ts";
export { safeFileName, numberedName, UPLOADS_DIR, FILE_NAME_MAX_BYTES } from "./files/upload-name.ts";
export { fetchFromSource, isAllowedSource, declaredLength, SourceError, SOURCE_MAX_REDIRECTS, type SourceHosts, type SourceProblem } from "./files/source.ts";
export { limitBytes, TooManyBytes } from "./files/byte-limit.ts";
export { FILE_WORDS, formatBytes } from "./words/files.ts";
export { contentTypeOf, isImageType, DEFAULT_CONTENT_TYPE } from "./files/content-type.ts";
export { withShellState, shellQuote, SHELL_STATE_FILE } from "./sandbox/shell-state.ts";
export { DeliveryLoop, FEED_WAIT_MS, type DeliveryLoopOptions } from "./outbox/delivery-loop.ts";
export { fileMaxBytesVar, fileOriginsVar } from "./files/file-config.ts";
export { parseWhen, parseSchedule, nextRuns, shortestGapS, describeSpec, describeSeconds, isTimeZone, WHEN_MAX_CHARS, type ScheduleSpec } from "./wire/schedule-when.ts";
export * from "./wire/schedule-schemas.ts";
export * from "./wire/repo-schemas.ts";
export * from "./wire/tool-schemas.ts";
export * from "./wire/pr-schemas.ts";
export * from "./wire/memory-schemas.ts";
export * from "./wire/asked-schemas.ts";
export { readRepoArgs, type RepoArgs, type RepoChange } from "./commands/repo-command.ts";
export { readPrArgs, type PrArgs } from "./commands/pr-command.ts";
export { readToolsArgs, type ToolsArgs, type ToolsChange } from "./commands/tools-command.ts";
export { splitScheduleText } from "./commands/schedule-command.ts";
export { describeSchedule, schedulesTitle, scheduledText, unscheduledText, scheduledRunHeading, scheduledRunFailedText } from "./format/schedules.ts";
export * from "./wire/home-schemas.ts";
export { quoteMessage, keptQuote, QUOTED_LABEL, QUOTED_MAX_CHARS, ASK_ABOUT_QUESTION_MAX_CHARS, type QuotedMessage } from "./format/quoted-message.ts";
export { ASK_ABOUT_WORDS } from "./words/ask-about.ts";
export * from "./trace/index.ts";
