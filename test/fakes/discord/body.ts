import type { IncomingMessage } from "node:http";
import type { UploadedFile } from "./world.ts";

/**
 * Reads a REST body the way Discord does: JSON, or multipart/form-data with a
 * `payload_json` part and `files[n]` parts (how discord.js sends attachments).
 */
export async function readDiscordBody(req: IncomingMessage): Promise<{ body: any; files: UploadedFile[] }> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const raw = Buffer.concat(chunks);
  const type = req.headers["content-type"] ?? "";
  if (raw.length === 0) return { body: null, files: [] };
  if (type.startsWith("multipart/form-data")) {
    // undici's Response parses multipart bodies; no extra dependency needed.
    const form = await new Response(raw, { headers: { "content-type": type } }).formData();
    const files: UploadedFile[] = [];
    let body: any = null;
    const entries: [string, FormDataEntryValue][] = [];
    form.forEach((value, field) => entries.push([field, value]));
    for (const [field, value] of entries) {
      if (field === "payload_json") body = JSON.parse(String(value));
      else if (typeof value !== "string") {
        const text = await value.text();
        files.push({ field, filename: value.name, contentType: value.type, text, size: value.size });
      }
    }
    return { body, files };
  }
  try {
    return { body: JSON.parse(raw.toString("utf8")), files: [] };
  } catch {
    return { body: Symbol.for("invalid-json"), files: [] };
  }
}

export const INVALID_JSON = Symbol.for("invalid-json");
