import {
  auditResponseSchema, cleanupResponseSchema, decisionResponseSchema, execResponseSchema, infoResponseSchema, messageResponseSchema,
  messagesResponseSchema, modelResponseSchema, policyResponseSchema, stopResponseSchema, STREAM_TEXT_HEADER, usageResponseSchema,
  type AuditResponse, type CleanupResponse, type DecisionRequest, type DecisionResponse, type ExecRequest, type ExecResponse,
  type FileList, type FileWritten, type InfoResponse, type MessageRequest, type MessageResponse, type MessagesResponse, type ModelRequest, type ModelResponse,
  type PolicyRequest, type PolicyResponse, type StopResponse, type TurnStreamEvent, type UsageResponse,
} from "../wire/schemas.ts";
import { streamMessage } from "./client-stream.ts";
import { isTransient, type TransportError, type TransportOptions, WorkerTransport } from "./transport.ts";
import { getFile, listFiles, putFile } from "./files-client.ts";
import { deliveryConfirmResponseSchema, deliveryFeedResponseSchema, deliveryHoldResponseSchema, type DeliveryConfirm, type DeliveryHoldResponse, type DeliveryFeedResponse, type DeliveryPlatform } from "../wire/delivery.ts";
import { keepAskedResponseSchema, takeAskedResponseSchema, type AskedMessage, type KeepAskedResponse, type TakeAskedResponse } from "../wire/asked-schemas.ts";
import { roomListResponseSchema, type RoomListRequest, type RoomListResponse } from "../wire/home-schemas.ts";
import {
  dismissResponseSchema,
  forgetResponseSchema,
  memoryResponseSchema,
  pinResponseSchema,
  type DismissResponse,
  type ForgetResponse,
  type MemoryResponse,
  type PinFactRequest,
  type PinResponse,
  type ProposalClick,
} from "../wire/memory-schemas.ts";
import {
  scheduleResponseSchema,
  schedulesResponseSchema,
  type ScheduleRequest,
  type ScheduleResponse,
  type SchedulesResponse,
  type UnscheduleRequest,
} from "../wire/schedule-schemas.ts";
import { prOpenedSchema, prProposalSchema, type PrOpened, type PrOpenRequest, type PrProposal, type PrProposeRequest, type PrSkipRequest } from "../wire/pr-schemas.ts";
import { repoResponseSchema, type RepoRequest, type RepoResponse } from "../wire/repo-schemas.ts";
import {
  roomToolsResponseSchema,
  toolServerDeleteResponseSchema,
  toolServerPutResponseSchema,
  toolServersResponseSchema,
  type PutToolServer,
  type RemoveToolServerQuery,
  type RoomToolsResponse,
} from "../wire/tool-schemas.ts";
import { ASK_ORDER_HEADER } from "../bot/ask-order.ts";
import { CLAIM_HEADER, eventClaimResultSchema, type EventClaimResult } from "../wire/claims.ts";
import { PACE_ASK_TIMEOUT_MS, type PaceEnd, paceEndResultSchema, paceSlotResultSchema, type PaceSlot, type PaceSlotRequest } from "../wire/pace.ts";
import { TRACEPARENT_HEADER } from "../trace/traceparent.ts";
import type { z } from "zod";

/** How to reach the Worker: its URL, the token, the deadline and the retries (transport.ts says which are retried). */
export type WorkerClientOptions = TransportOptions;

/**
 * The typed Worker client both bots and the CLI use. Every failure comes out as
 * a DuetError, so callers render one vocabulary.
 */
export class WorkerClient {
  private readonly t: WorkerTransport;

  constructor(opts: WorkerClientOptions) {
    this.t = new WorkerTransport(opts);
  }

  /**
   * `claim`: this delivery's claimant (CLAIM_HEADER); another delivery of the same key is refused with `answered_elsewhere`.
   * `traceparent`: the caller's span, so the room's turn joins its trace.
   * `order`: the ask's place among this process's asks to the room (ASK_ORDER_HEADER), which the room admits in that order.
   */
  message(roomId: string, body: MessageRequest, opts: TurnOptions = {}): Promise<MessageResponse> {
    return this.call("POST", `${roomPath(roomId)}/message`, messageResponseSchema, body, Boolean(body.idempotencyKey), undefined, turnHeaders(opts));
  }

  /**
   * The same turn as `message`, live: `onEvent` gets the model's text as it is
   * written and each command as it starts and ends; resolves with the `done`
   * body (`stopped: true` when someone stopped the turn). `signal` hangs up
   * without stopping the turn; a lost stream is re-joined when the request has
   * an idempotency key. The Worker's silence limit is the client's timeout.
   * `whole`: the caller shows the answer whole and follows the stream only to
   * hear the room take the turn (`onAnswered`); the model answers whole.
   */
  messageStream(
    roomId: string,
    body: MessageRequest,
    onEvent: (e: TurnStreamEvent) => void,
    opts: TurnOptions & { signal?: AbortSignal; onAnswered?: (admitted: boolean) => void; whole?: boolean } = {},
  ): Promise<MessageResponse> {
    const headers = { ...turnHeaders(opts), ...(opts.whole ? { [STREAM_TEXT_HEADER]: "whole" } : {}) };
    return streamMessage(this.t, `${roomPath(roomId)}/message`, body, onEvent, opts.signal, headers, opts.onAnswered);
  }

  /** Stops the room's running turn, whoever started it; `stopped` is false when nothing was running. */
  stop(roomId: string, userId?: string): Promise<StopResponse> {
    return this.call("POST", `${roomPath(roomId)}/stop`, stopResponseSchema, userId ? { userId } : {}, true);
  }

  exec(roomId: string, body: ExecRequest): Promise<ExecResponse> {
    return this.call("POST", `${roomPath(roomId)}/sandbox/exec`, execResponseSchema, body, Boolean(body.idempotencyKey));
  }

  history(roomId: string): Promise<MessagesResponse> {
    return this.call("GET", `${roomPath(roomId)}/messages`, messagesResponseSchema, undefined, true);
  }

  /**
   * Resolves for 200 and for 207 (cleaned with part errors); the caller sees `errors`.
   * `timeoutMs` overrides the client's: a workspace room's clean-up visits every room in it.
   * `userId` marks a person's reset: the emptied audit then starts with who reset it
   * (a clean-up nobody asked for, such as an archived channel, leaves nothing).
   */
  cleanup(roomId: string, opts: { timeoutMs?: number; userId?: string; keepMemory?: boolean; ifResetAt?: number } = {}): Promise<CleanupResponse> {
    // keepMemory and ifResetAt only mean something for a person's reset (userId).
    const by = opts.userId
      ? `?userId=${encodeURIComponent(opts.userId)}${opts.keepMemory ? "&keepMemory=1" : ""}${opts.ifResetAt !== undefined ? `&ifResetAt=${opts.ifResetAt}` : ""}`
      : "";
    return this.call("DELETE", `${roomPath(roomId)}${by}`, cleanupResponseSchema, undefined, true, opts.timeoutMs);
  }

  /** The room's run policy: `auto` (commands run at once) or `approve` (each waits for a person). */
  policy(roomId: string): Promise<PolicyResponse> {
    return this.call("GET", `${roomPath(roomId)}/policy`, policyResponseSchema, undefined, true);
  }

  /** Setting the same policy twice is harmless, so a failed attempt may be repeated. */
  setPolicy(roomId: string, body: PolicyRequest): Promise<PolicyResponse> {
    return this.call("PUT", `${roomPath(roomId)}/policy`, policyResponseSchema, body, true);
  }

  /** The room's model, where it comes from, and the models it may switch to. */
  model(roomId: string): Promise<ModelResponse> {
    return this.call("GET", `${roomPath(roomId)}/model`, modelResponseSchema, undefined, true);
  }

  /** Switching to the same model twice is harmless, so a failed attempt may be repeated. */
  setModel(roomId: string, body: ModelRequest): Promise<ModelResponse> {
    return this.call("PUT", `${roomPath(roomId)}/model`, modelResponseSchema, body, true);
  }

  /** The facts pinned in the room. */
  memory(roomId: string): Promise<MemoryResponse> {
    return this.call("GET", `${roomPath(roomId)}/memory`, memoryResponseSchema, undefined, true);
  }

  /** The same fact pinned twice is found, not kept twice, so a failed attempt may be repeated. */
  remember(roomId: string, body: PinFactRequest): Promise<PinResponse> {
    return this.call("POST", `${roomPath(roomId)}/memory`, pinResponseSchema, body, true);
  }

  /** Pins the fact the model proposed as `id`; a repeat finds it gone (404), so a failed attempt is not repeated blindly. */
  pinProposed(roomId: string, id: string, body: ProposalClick): Promise<PinResponse> {
    return this.call("POST", `${roomPath(roomId)}/memory/proposed/${encodeURIComponent(id)}`, pinResponseSchema, body, false);
  }

  /** Drops the fact the model proposed as `id`, pinning nothing. */
  dismissProposed(roomId: string, id: string): Promise<DismissResponse> {
    return this.call("DELETE", `${roomPath(roomId)}/memory/proposed/${encodeURIComponent(id)}`, dismissResponseSchema, undefined, false);
  }

  /** Not repeated: a second attempt after a first that landed would unpin the next fact. */
  forget(roomId: string, n: number, userId: string): Promise<ForgetResponse> {
    return this.call("DELETE", `${roomPath(roomId)}/memory/${n}?userId=${encodeURIComponent(userId)}`, forgetResponseSchema, undefined, false);
  }

  /**
   * Keeps the message an "Ask Duet" form is open on in its room under `key`, until `takeAsked`
   * or ASKED_KEEP_MS; keeping the same again is harmless, so a failed attempt may be repeated.
   */
  keepAsked(roomId: string, key: string, body: AskedMessage): Promise<KeepAskedResponse> {
    return this.call("PUT", askedPath(roomId, key), keepAskedResponseSchema, body, true, ASKED_TIMEOUT_MS);
  }

  /** The message kept under `key`, once (`message: null` when none is); not repeated: a first attempt that landed took it. */
  takeAsked(roomId: string, key: string): Promise<TakeAskedResponse> {
    return this.call("POST", `${askedPath(roomId, key)}/take`, takeAskedResponseSchema, undefined, false, ASKED_TIMEOUT_MS);
  }

  /** The repository the room works on (its own, or its channel's for a thread room), or `{repo: null}`. */
  repo(roomId: string): Promise<RepoResponse> {
    return this.call("GET", `${roomPath(roomId)}/repo`, repoResponseSchema, undefined, true);
  }

  /** Links a repository; linking the same one twice is harmless, so a failed attempt may be repeated. */
  setRepo(roomId: string, body: RepoRequest): Promise<RepoResponse> {
    return this.call("PUT", `${roomPath(roomId)}/repo`, repoResponseSchema, body, true);
  }

  /** Checks the room's repository out at repo/ now, or fetches into the checkout there; answers the view with the checkout. */
  syncRepo(roomId: string): Promise<RepoResponse> {
    return this.call("POST", `${roomPath(roomId)}/repo/sync`, repoResponseSchema, undefined, true);
  }

  /** Unlinks the room's own repository (`userId` is audited); answers what the room then works on. */
  removeRepo(roomId: string, userId: string): Promise<RepoResponse> {
    return this.call("DELETE", `${roomPath(roomId)}/repo?userId=${encodeURIComponent(userId)}`, repoResponseSchema, undefined, true);
  }

  /** Proposes the change in the room's checkout as a pull request: the branch, the diffstat and the diff's head; nothing is pushed. */
  proposePr(roomId: string, body: PrProposeRequest): Promise<PrProposal> {
    return this.call("POST", `${roomPath(roomId)}/repo/pr`, prProposalSchema, body, true);
  }

  /** Opens the proposal as a pull request (Duet pushes its change to the `duet/…` branch); opening it again answers the same one. */
  openPr(roomId: string, id: string, body: PrOpenRequest): Promise<PrOpened> {
    return this.call("POST", `${roomPath(roomId)}/repo/pr/${encodeURIComponent(id)}/open`, prOpenedSchema, body, true);
  }

  /** Drops the proposal `id` unopened; answers it. */
  skipPr(roomId: string, id: string, body: PrSkipRequest): Promise<PrProposal> {
    return this.call("POST", `${roomPath(roomId)}/repo/pr/${encodeURIComponent(id)}/skip`, prProposalSchema, body, true);
  }

  /**
   * The tool servers of `workspace` (`slack-T123`, as room ids begin), with their tools; header names only, never values.
   * `userId`: who will see the listing; a server they added that needs OAuth carries its link.
   */
  toolServers(workspace: string, userId?: string): Promise<z.infer<typeof toolServersResponseSchema>> {
    return this.call("GET", `${toolsPath(workspace)}${userId ? `?${new URLSearchParams({ userId })}` : ""}`, toolServersResponseSchema, undefined, true);
  }

  /** Adds the server or replaces one of the same name; the same body twice is harmless, so a failed attempt may be repeated. */
  putToolServer(workspace: string, name: string, body: PutToolServer): Promise<z.infer<typeof toolServerPutResponseSchema>> {
    return this.call("PUT", `${toolsPath(workspace)}/${encodeURIComponent(name)}`, toolServerPutResponseSchema, body, true);
  }

  /** Removes the server; `deleted` is false when there was none (so a repeat is harmless). */
  removeToolServer(workspace: string, name: string, from: RemoveToolServerQuery = {}): Promise<{ deleted: boolean }> {
    const query = new URLSearchParams(Object.entries(from).filter((e): e is [string, string] => typeof e[1] === "string")).toString();
    return this.call("DELETE", `${toolsPath(workspace)}/${encodeURIComponent(name)}${query ? `?${query}` : ""}`, toolServerDeleteResponseSchema, undefined, true);
  }

  /** The servers of the room's workspace that the room turned on. */
  roomTools(roomId: string): Promise<RoomToolsResponse> {
    return this.call("GET", `${roomPath(roomId)}/tools`, roomToolsResponseSchema, undefined, true);
  }

  /** Turns a server on in the room (404 when the workspace has none of that name); repeatable. */
  enableTool(roomId: string, name: string, userId: string): Promise<RoomToolsResponse> {
    return this.call("PUT", `${roomPath(roomId)}/tools/${encodeURIComponent(name)}`, roomToolsResponseSchema, { userId }, true);
  }

  disableTool(roomId: string, name: string, userId: string): Promise<RoomToolsResponse> {
    return this.call("DELETE", `${roomPath(roomId)}/tools/${encodeURIComponent(name)}?userId=${encodeURIComponent(userId)}`, roomToolsResponseSchema, undefined, true);
  }

  /** A workspace room's channel rooms (those of `channels`, when given) with their settings, and the person's use today: what a home view shows. */
  listRooms(workspaceRoomId: string, body: RoomListRequest): Promise<RoomListResponse> {
    return this.call("POST", `${roomPath(workspaceRoomId)}/rooms`, roomListResponseSchema, body, true);
  }

  /** The room's model usage (with its threads'), the last 7 UTC days, and the budgets: what `userId` has left, when given. */
  usage(roomId: string, userId?: string): Promise<UsageResponse> {
    const who = userId ? `?userId=${encodeURIComponent(userId)}` : "";
    return this.call("GET", `${roomPath(roomId)}/usage${who}`, usageResponseSchema, undefined, true);
  }

  /**
   * Runs or skips a proposed command. Throws DuetError `already_decided` (409),
   * `approval_expired` (410) or `not_found` (404); never repeated on its own,
   * since a repeat of a decision that went through would answer 409.
   */
  decide(roomId: string, approvalId: string, body: DecisionRequest): Promise<DecisionResponse> {
    return this.call("POST", `${roomPath(roomId)}/approvals/${encodeURIComponent(approvalId)}`, decisionResponseSchema, body, false);
  }

  /** The room's audit trail, oldest first (the last AUDIT_KEEP events). */
  audit(roomId: string): Promise<AuditResponse> {
    return this.call("GET", `${roomPath(roomId)}/audit`, auditResponseSchema, undefined, true);
  }

  /** Adds a scheduled ask. Never repeated on its own: a repeat of one that went through would add a second. */
  schedule(roomId: string, body: ScheduleRequest): Promise<ScheduleResponse> {
    return this.call("POST", `${roomPath(roomId)}/schedules`, scheduleResponseSchema, body, false);
  }

  schedules(roomId: string): Promise<SchedulesResponse> {
    return this.call("GET", `${roomPath(roomId)}/schedules`, schedulesResponseSchema, undefined, true);
  }

  /** Removes a schedule; a repeat after one that went through answers 404 (not_found). */
  unschedule(roomId: string, id: string, body: UnscheduleRequest): Promise<ScheduleResponse> {
    return this.call("DELETE", `${roomPath(roomId)}/schedules/${encodeURIComponent(id)}`, scheduleResponseSchema, body, false);
  }

  /**
   * Streams a file into the room's workspace (`uploads/<name>` for a person's
   * upload: a taken name gets a number, and the next turn tells the model).
   * Never retried: a stream cannot be sent twice.
   */
  putFile(roomId: string, path: string, body: ReadableStream<Uint8Array> | Uint8Array, opts: { userId?: string; bytes?: number; signal?: AbortSignal } = {}): Promise<FileWritten> {
    return putFile(this.t, roomId, path, body, opts);
  }

  /** A workspace file as a stream, with its length and type. */
  getFile(roomId: string, path: string): Promise<{ body: ReadableStream<Uint8Array>; bytes: number; type: string }> {
    return getFile(this.t, roomId, path);
  }

  listFiles(roomId: string, dir = ""): Promise<FileList> {
    return listFiles(this.t, roomId, dir);
  }

  /** Answers waiting for a bot of `platform`, leased to this call; waits up to `waitMs` for one when there are none. */
  deliveries(platform: DeliveryPlatform, waitMs: number): Promise<DeliveryFeedResponse> {
    return this.call("GET", `/api/deliveries/${platform}?waitMs=${waitMs}`, deliveryFeedResponseSchema, undefined, true, waitMs + DELIVERY_READ_MARGIN_MS);
  }

  /** Tells the room what was posted for the turn under `body.key` (repeatable: a second confirm changes nothing). */
  confirmDelivery(roomId: string, body: DeliveryConfirm): Promise<{ confirmed: boolean; first?: boolean }> {
    return this.call("POST", `${roomPath(roomId)}/deliveries`, deliveryConfirmResponseSchema, body, true);
  }

  /** Keeps the answer under `key`, which this bot is still posting, leased to it for the answer's `leaseMs` (repeatable: each call extends the lease). */
  holdDelivery(roomId: string, key: string): Promise<DeliveryHoldResponse> {
    return this.call("POST", `${roomPath(roomId)}/deliveries/hold`, deliveryHoldResponseSchema, { key }, true);
  }

  /**
   * Reserves the next slot for a new message in `channel` of `scope` (shared by
   * every replica): the wait before posting. Answers within PACE_ASK_TIMEOUT_MS
   * or fails; never repeated, since a repeat would reserve a second slot.
   */
  paceSlot(scope: string, body: PaceSlotRequest): Promise<PaceSlot> {
    return this.call("POST", `/api/pace/${encodeURIComponent(scope)}`, paceSlotResultSchema, body, false, PACE_ASK_TIMEOUT_MS);
  }

  /**
   * Tells the shared pace that this process's new message in `channel` was
   * posted, so the next process's slot counts from here rather than from a
   * margin after this one's slot. Not repeated: a late word only lets the
   * margin decide.
   */
  paceEnded(scope: string, body: PaceEnd): Promise<{ ended: boolean }> {
    return this.call("POST", `/api/pace/${encodeURIComponent(scope)}/end`, paceEndResultSchema, body, false, PACE_ASK_TIMEOUT_MS);
  }

  /**
   * Claims a platform delivery (`id`) in `scope` (a workspace or guild) for this
   * replica: `first` is false when any replica claimed it already. Repeatable:
   * a lost answer is asked again, and the claim it made answers `first: false`,
   * so a caller that cannot tell treats an error as "not known" (see callers).
   */
  claimEvent(scope: string, id: string): Promise<EventClaimResult> {
    return this.call("POST", `/api/claims/${encodeURIComponent(scope)}`, eventClaimResultSchema, { id }, false);
  }

  /** How the Worker is set up (the sandbox's provider and network), for help texts. */
  info(): Promise<InfoResponse> {
    return this.call("GET", "/api/info", infoResponseSchema, undefined, true);
  }

  async health(): Promise<boolean> {
    try {
      const res = await this.t.send("GET", "/health", { timeoutMs: HEALTH_TIMEOUT_MS });
      await res.text();
      return res.ok;
    } catch {
      return false;
    }
  }

  /**
   * One request, repeated on a failure that is safe to repeat: `repeatable`
   * requests (reads, deletes, keyed messages) after a lost connection or a 500,
   * any request that never reached the Worker.
   */
  private call<S extends z.ZodType>(method: string, path: string, schema: S, body: unknown, repeatable: boolean, timeoutMs?: number, headers?: Record<string, string>): Promise<z.infer<S>> {
    return this.t.retrying(
      async () => this.t.read(await this.t.send(method, path, { body, timeoutMs, headers }), schema),
      (e) => isTransient(e) && (repeatable || Boolean(e.refused)),
    );
  }
}

/** A kept "Ask Duet" message is one row in its room: a person waits on the form (or its answer) meanwhile. */
const ASKED_TIMEOUT_MS = 15_000;
/** `/health` answers at once or not at all: a start-up check must not wait the turn deadline. */
const HEALTH_TIMEOUT_MS = 5_000;
/** A feed read answers by its wait plus the rooms' claims. */
const DELIVERY_READ_MARGIN_MS = 15_000;

const claimHeaders = (claim: string | undefined): Record<string, string> => (claim ? { [CLAIM_HEADER]: claim } : {});
/** What a message request carries beside its body, as headers. */
interface TurnOptions {
  claim?: string;
  traceparent?: string;
  order?: string;
}
const turnHeaders = (opts: TurnOptions): Record<string, string> => ({
  ...claimHeaders(opts.claim),
  ...(opts.traceparent ? { [TRACEPARENT_HEADER]: opts.traceparent } : {}),
  ...(opts.order ? { [ASK_ORDER_HEADER]: opts.order } : {}),
});

const toolsPath = (workspace: string) => `/api/tools/${encodeURIComponent(workspace)}`;
const roomPath = (roomId: string) => `/api/rooms/${encodeURIComponent(roomId)}`;
const askedPath = (roomId: string, key: string) => `${roomPath(roomId)}/asked/${encodeURIComponent(key)}`;
