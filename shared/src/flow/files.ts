import { DuetError, describeForUser } from "../wire/errors.ts";
import { limitBytes } from "../files/byte-limit.ts";
import { SourceError, type SourceProblem } from "../files/source.ts";
import { safeFileName, UPLOADS_DIR } from "../files/upload-name.ts";
import { baseOf, checkWorkspacePath } from "../files/workspace-path.ts";
import { DEFAULT_FILE_MAX_BYTES } from "../wire/limits.ts";
import type { MessageResponse } from "../wire/schemas.ts";
import { FILE_WORDS } from "../words/files.ts";
import { failure, outcome, refused } from "./attempt.ts";
import type { Reply } from "./reply.ts";
import type { ChatSurface, OutgoingFile, PostedRef } from "./surface.ts";
import type { Asker, FlowDeps, Outcome } from "./types.ts";
import { redactReply, redacting } from "./redacting.ts";
import { show } from "./audience.ts";

/**
 * Files between the chat and the room's workspace, once for every platform:
 * what people share goes to `uploads/` before their turn starts, what the
 * model attaches follows its answer, and `get` posts a file on request. The
 * bots give the platform I/O: how to open a shared file, how to post one.
 */

/** A file a person shared, not yet fetched. */
export interface IncomingFile {
  name: string;
  /** The size the platform declares, when it does. */
  bytes?: number;
  /**
   * Starts the download from the platform (its hosts only: see files/source.ts);
   * `signal` cancels it. Throws SourceError.
   */
  open(signal: AbortSignal): Promise<{ body: ReadableStream<Uint8Array>; bytes?: number }>;
}

const maxOf = (deps: FlowDeps) => deps.fileMaxBytes ?? DEFAULT_FILE_MAX_BYTES;

/**
 * Streams each shared file into the room's `uploads/` (the Worker numbers a
 * taken name), one at a time; a file that cannot go in gets one message in the
 * place (`say`), and the others still go. Resolves once every file is written or refused.
 */
export async function shareFiles(deps: FlowDeps, say: (reply: Reply) => Promise<unknown>, asker: Asker, files: readonly IncomingFile[], platform: string): Promise<void> {
  for (const file of files) {
    const problem = await shareOne(deps, asker, file, platform);
    if (problem) await say(redactReply(refused(deps, "upload", asker.room, { kind: "error", text: problem }, "upload_refused"), deps.secrets ?? []));
  }
}

/** Null when the file is in the workspace, else what to tell the person. */
async function shareOne(deps: FlowDeps, asker: Asker, file: IncomingFile, platform: string): Promise<string | null> {
  const max = maxOf(deps);
  if (file.bytes !== undefined && file.bytes > max) return FILE_WORDS.uploadTooBig(file.name, max, file.bytes);
  const abort = new AbortController();
  let over = false;
  try {
    const source = await file.open(abort.signal);
    if (source.bytes !== undefined && source.bytes > max) {
      abort.abort();
      return FILE_WORDS.uploadTooBig(file.name, max, source.bytes);
    }
    // The length the Worker is told: a body that ends short of it (cut off below) is never kept.
    const expected = source.bytes ?? file.bytes;
    const cap = Math.min(max, expected ?? max);
    const put = new AbortController();
    const body = limitBytes(source.body, cap, () => {
      over = true;
      put.abort();
    });
    await deps.worker.putFile(asker.room, `${UPLOADS_DIR}/${safeFileName(file.name)}`, body, { userId: asker.user, bytes: expected, signal: put.signal });
    return null;
  } catch (err) {
    abort.abort();
    const declared = file.bytes;
    if (over && declared !== undefined && declared < max) return FILE_WORDS.sizeChanged(file.name, declared, platform);
    if (over) return FILE_WORDS.uploadTooBig(file.name, max);
    if (err instanceof DuetError && err.code === "payload_too_large") return refusedAsTooBig(file.name, err);
    if (err instanceof SourceError) {
      deps.log(`A file shared in ${asker.room} was not fetched: ${err.message}`);
      return sourceWords(err.problem)(file.name, platform);
    }
    deps.log(`A file shared in ${asker.room} was not saved: ${(err as Error).message}`);
    return FILE_WORDS.notSaved(file.name, describeForUser(err));
  }
}

/**
 * The Worker refused the file as too large: past its DUET_FILE_MAX_BYTES (named
 * in the answer, and it may differ from the bot's) or past the workspace's room.
 */
function refusedAsTooBig(name: string, err: DuetError): string {
  const limit = Number(err.details?.maxBytes?.[0]);
  return Number.isSafeInteger(limit) && limit > 0 ? FILE_WORDS.uploadTooBig(name, limit) : FILE_WORDS.refusedTooLarge(name, err.message);
}

function sourceWords(problem: SourceProblem): (name: string, platform: string) => string {
  if (problem === "login_page") return FILE_WORDS.loginPage;
  if (problem === "off_host") return FILE_WORDS.offHost;
  return FILE_WORDS.unavailable;
}

/** A workspace file as the surface sends it: its bytes come from the Worker when the platform is ready for them. */
function outgoing(deps: FlowDeps, room: string, a: { path: string; bytes: number; type: string }): OutgoingFile {
  return { path: a.path, name: baseOf(a.path), bytes: a.bytes, type: a.type, open: async () => (await deps.worker.getFile(room, a.path)).body };
}

/**
 * An answer's files, posted where the answer is, after it. Started as soon as
 * the answer is known, while `posted` (its message) is still on its way: a
 * platform that takes the bytes apart from the message that shows them
 * (Slack's upload URL) moves them meanwhile, and only the share waits for the
 * answer. Nothing is shown when the answer was not posted. One too big for the
 * platform is named with its size instead.
 */
export async function sendAttachments(deps: FlowDeps, surface: ChatSurface, asker: Asker, answer: MessageResponse, posted: Promise<PostedRef | null>): Promise<void> {
  surface = redacting(surface, deps.secrets);
  const files = surface.files;
  const attachments = answer.attachments ?? [];
  if (!files || attachments.length === 0) return;
  const shown = posted.then((p) => p !== null, () => false);
  const limit = Math.min(files.maxBytes, maxOf(deps));
  const fit = attachments.filter((a) => a.bytes <= limit);
  const tooBig = attachments.filter((a) => a.bytes > limit);
  if (fit.length && !(await files.send(fit.map((a) => outgoing(deps, asker.room, a)), undefined, shown)) && (await shown)) {
    deps.log(`${files.platform} refused the attachments of an answer in ${asker.room}`);
  }
  if (tooBig.length && (await shown)) await show(surface, "ask", true, { kind: "hint", text: tooBig.map((a) => tooBigWords(deps, a.path, a.bytes, files.maxBytes, files.platform)).join("\n") });
}

/** Why a file is not posted: over the Worker's limit (nobody may take it out), or only over the platform's. */
function tooBigWords(deps: FlowDeps, path: string, bytes: number, platformMax: number, platform: string): string {
  return bytes > maxOf(deps) ? FILE_WORDS.overFileLimit(path, maxOf(deps), bytes) : FILE_WORDS.tooBigToPost(path, bytes, platformMax, platform);
}

/** `get <path>`: the workspace file posted in the place, or why not (to the asker only). */
export async function getFile(deps: FlowDeps, surface: ChatSurface, asker: Asker, raw: string): Promise<Outcome> {
  surface = redacting(surface, deps.secrets);
  const privately = async (text: string) => outcome(true, await show(surface, "get", false, { kind: "hint", text }));
  if (!raw.trim()) return privately(FILE_WORDS.getUsage);
  const checked = checkWorkspacePath(raw.trim());
  if (!checked.ok) return privately(FILE_WORDS.badPath(raw.trim(), checked.error));
  if (!checked.path) return privately(FILE_WORDS.getUsage);
  const files = surface.files;
  if (!files) return privately(FILE_WORDS.noFilesHere);
  const path = checked.path;
  let file: { body: ReadableStream<Uint8Array>; bytes: number; type: string };
  try {
    file = await deps.worker.getFile(asker.room, path);
  } catch (err) {
    if (err instanceof DuetError && err.code === "not_found") return privately(FILE_WORDS.notFound(path));
    if (err instanceof DuetError && err.code === "payload_too_large") return privately(FILE_WORDS.overFileLimit(path, maxOf(deps)));
    return outcome(false, await show(surface, "get", false, failure(deps, "get", asker.room, err)));
  }
  const limit = Math.min(files.maxBytes, maxOf(deps));
  if (file.bytes > limit) {
    await file.body.cancel().catch(() => undefined);
    return privately(tooBigWords(deps, path, file.bytes, files.maxBytes, files.platform));
  }
  const body = file.body;
  const sent = await files.send([{ path, name: baseOf(path), bytes: file.bytes, type: file.type, open: async () => body }], FILE_WORDS.fetched(path, file.bytes));
  if (sent) return "answered";
  await body.cancel().catch(() => undefined);
  deps.log(`get ${path} in ${asker.room}: ${files.platform} did not accept the file`);
  return outcome(false, await show(surface, "get", false, refused(deps, "get", asker.room, { kind: "error", text: FILE_WORDS.notPosted(path, files.platform) }, "platform_refused")));
}
