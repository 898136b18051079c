import { checkWorkspacePath, contentTypeOf, parentOf, type Attachment } from "@duet/shared";
import type { WorkspaceFiles } from "./types.ts";

/**
 * A path the model put in `<attach>`, as the answer lists it: a regular file in
 * the workspace within the size limit. Anything else is a note for the reply
 * (the model may name a file its commands failed to make), never an error.
 */
export async function findAttachment(files: WorkspaceFiles, roomId: string, raw: string, fileMaxBytes: number): Promise<Attachment | string> {
  const checked = checkWorkspacePath(raw.replace(/^\/workspace\//, ""));
  if (!checked.ok || !checked.path) return `${raw} was not attached: ${checked.ok ? "it names no file" : checked.error}.`;
  const path = checked.path;
  let entries;
  try {
    entries = await files.list(roomId, parentOf(path));
  } catch {
    return `${path} was not attached: there is no such file in the workspace.`;
  }
  const entry = entries.find((e) => e.path === path);
  if (!entry) return `${path} was not attached: there is no such file in the workspace.`;
  if (entry.kind !== "file") return `${path} was not attached: it is not a regular file.`;
  if (entry.bytes > fileMaxBytes) return `${path} was not attached: it is ${entry.bytes} bytes, over the ${fileMaxBytes}-byte limit.`;
  return { path, bytes: entry.bytes, type: contentTypeOf(path) };
}
