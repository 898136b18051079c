import type { IncomingMessage, ServerResponse } from "node:http";
import { pipeline } from "node:stream/promises";
import { RESPONSE_ALREADY_SENT } from "@hono/node-server/utils/response";
import { Hono } from "hono";
import { checkWorkspacePath } from "@duet/shared";
import type { Executor } from "../executor.ts";
import { HttpError } from "../http.ts";
import { sessionIdSchema } from "../validation.ts";
import { listDir, openFile, writeFile } from "./file-store.ts";

/**
 * The workspace files API (the Worker's `local` provider speaks it):
 *
 *   PUT /api/sessions/:id/files/<path>[?keep=1]  raw body → {path, bytes, sha256}; keep: a taken name gets a number
 *   GET /api/sessions/:id/files/<path>           the bytes (Content-Type from the name, Content-Length)
 *   GET /api/sessions/:id/files?dir=<path>       {entries: [{path, bytes, kind, modifiedAt}]}
 *
 * 400 for a bad path or a link, 404 missing, 413 past DUET_FILE_MAX_BYTES or
 * SANDBOX_WORKSPACE_MAX_BYTES.
 */
type Bindings = { incoming: IncomingMessage; outgoing: ServerResponse };

export function fileRoutes(executor: Executor): Hono<{ Bindings: Bindings }> {
  const files = new Hono<{ Bindings: Bindings }>();

  // Before the file routes: hono's `/files/*` matches `/files` too.
  files.get("/api/sessions/:sessionId/files", async (c) => {
    const workspace = await executor.workspaces.ensure(sessionOf(c.req.param("sessionId")));
    const dir = checked(c.req.query("dir") ?? "");
    return c.json({ entries: listDir(workspace, dir) });
  });

  files.put("/api/sessions/:sessionId/files/*", async (c) => {
    const workspace = await executor.workspaces.ensure(sessionOf(c.req.param("sessionId")));
    const path = pathOf(c.req.url, true);
    const declared = c.req.header("content-length");
    const written = await writeFile(workspace, path, c.env.incoming, {
      declaredBytes: declared === undefined ? undefined : Number(declared),
      limits: executor.fileLimits,
      owner: executor.fileOwner,
      keepExisting: c.req.query("keep") === "1",
    });
    return c.json(written);
  });

  files.get("/api/sessions/:sessionId/files/*", async (c) => {
    const workspace = await executor.workspaces.ensure(sessionOf(c.req.param("sessionId")));
    const path = pathOf(c.req.url, true);
    const file = openFile(workspace, path, executor.fileLimits.fileMaxBytes);
    const res = c.env.outgoing;
    res.writeHead(200, { "content-type": file.type, "content-length": String(file.bytes) });
    if (c.req.method === "HEAD") {
      file.stream.destroy();
      res.end();
      return RESPONSE_ALREADY_SENT;
    }
    // Piped from the file to the socket as Node streams, not through a web stream: 20 MiB in
    // 91-109 ms against 167-233 (medians of 9, load average 18), and the pieces are read
    // 1 MiB at a time (file-store.ts). A caller that hangs up ends the pipe and closes the file.
    await pipeline(file.stream, res).catch(() => undefined);
    return RESPONSE_ALREADY_SENT;
  });

  return files;
}

function sessionOf(raw: string): string {
  const checkedId = sessionIdSchema.safeParse(raw);
  if (!checkedId.success) throw new HttpError(400, checkedId.error.issues[0].message);
  return checkedId.data;
}

/** The path after `/files/`, decoded and checked; `file`: it must name something, not the workspace. */
function pathOf(url: string, file: boolean): string {
  const raw = new URL(url).pathname.replace(/^\/api\/sessions\/[^/]+\/files\/?/, "");
  let decoded: string;
  try {
    decoded = decodeURIComponent(raw);
  } catch {
    throw new HttpError(400, "the file path is not valid URL encoding");
  }
  const path = checked(decoded);
  if (file && !path) throw new HttpError(400, "name a file after /files/");
  return path;
}

function checked(raw: string): string {
  const result = checkWorkspacePath(raw);
  if (!result.ok) throw new HttpError(400, result.error);
  return result.path;
}
