import { Hono, type Context } from "hono";
import { baseOf, DuetError, invalidPathError, UPLOADS_DIR, workspaceFileOrThrow, workspacePathOrThrow } from "@duet/shared";
import { loadConfig } from "../config.ts";
import { drainUpload, fileTooLarge } from "../files/limit-stream.ts";
import { workspaceFiles } from "../files/workspace-files.ts";
import type { Outcome } from "../outcome.ts";
import { resetBy } from "./control-routes.ts";
import type { RoomApp } from "./rooms.ts";

/**
 * A room's workspace files (mounted at `/files` in room-routes.ts; the body
 * limit does not apply: uploads stream through):
 *
 *   PUT /api/rooms/:roomId/files/<path>?userId=  raw body → {path, bytes, sha256}
 *   GET /api/rooms/:roomId/files/<path>          the bytes
 *   GET /api/rooms/:roomId/files?dir=<path>      {entries}
 *
 * A file under `uploads/` is a person's upload: it never replaces another (a
 * taken name gets a number) and the room's next turn tells the model about it.
 */
export const fileRoutes = new Hono<RoomApp>();

/** Duet's own folder in a workspace (the shell's saved state, what keeps the workspace across sleep): not listed with the person's files. */
const OWN_DIR = ".duet";

type Ctx = Context<RoomApp>;

// Before the file routes: hono's `/files/*` matches `/files` too.
fileRoutes.get("/", async (c) => {
  const roomId = c.var.roomId;
  const dir = workspacePathOrThrow(c.req.query("dir") ?? "");
  const entries = await workspaceFiles(loadConfig(c.env), c.env).list(roomId, dir);
  return Response.json({ entries: dir ? entries : entries.filter((e) => e.path !== OWN_DIR) });
});

fileRoutes.put("/*", async (c) => {
  const config = loadConfig(c.env);
  const roomId = c.var.roomId;
  const path = filePathOf(c);
  // The person's id, checked as the other routes check it.
  const userId = resetBy(c.req.query("userId"));
  const declared = c.req.header("content-length");
  const bytes = declared === undefined ? undefined : Number(declared);
  const body = c.req.raw.body;
  if (bytes !== undefined && bytes > config.DUET_FILE_MAX_BYTES) {
    if (body) await drainUpload(body);
    throw fileTooLarge(config.DUET_FILE_MAX_BYTES);
  }
  const upload = path.startsWith(`${UPLOADS_DIR}/`);
  const source = body ?? new ReadableStream<Uint8Array>({ start: (s) => s.close() });
  // No body is no bytes: nothing to count (only the runtime's own request bodies are counted).
  const length = body ? bytes : 0;
  const written = await workspaceFiles(config, c.env)
    .write(roomId, path, source, { keepExisting: upload, maxBytes: config.DUET_FILE_MAX_BYTES, ...(length !== undefined && Number.isSafeInteger(length) ? { bytes: length } : {}) })
    .catch(async (err: unknown) => {
      await drainUpload(source);
      throw err;
    });
  const stub = c.var.room;
  if (upload) await stub.recordUpload({ userId, name: baseOf(written.path), path: written.path, bytes: written.bytes });
  // The file is written either way; a save that failed is said by the room's next turn, which saves again.
  const kept = (await stub.workspaceChanged()) as Outcome;
  if (kept.status !== 200 || (kept.body as { note?: string }).note) console.error(`[files] ${roomId}: the workspace was not saved after a write`, kept.body);
  return Response.json(written);
});

fileRoutes.get("/*", async (c) => {
  const config = loadConfig(c.env);
  const file = await workspaceFiles(config, c.env).read(c.var.roomId, filePathOf(c));
  if (file.bytes > config.DUET_FILE_MAX_BYTES) {
    await file.body.cancel().catch(() => undefined);
    throw new DuetError("payload_too_large", `the file is ${file.bytes} bytes, over the ${config.DUET_FILE_MAX_BYTES}-byte limit (DUET_FILE_MAX_BYTES)`);
  }
  return new Response(file.body, { headers: { "content-type": file.type, "content-length": String(file.bytes) } });
});

/** The path after `/files/`, decoded and checked; it must name a file. */
function filePathOf(c: Ctx): string {
  const raw = new URL(c.req.url).pathname.replace(/^\/api\/rooms\/[^/]+\/files\/?/, "");
  let decoded: string;
  try {
    decoded = decodeURIComponent(raw);
  } catch {
    throw invalidPathError("the path is not valid URL encoding");
  }
  return workspaceFileOrThrow(decoded);
}

