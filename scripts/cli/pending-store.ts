import { mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { pendingApprovalSchema, type PendingApproval } from "@duet/shared";
import { z } from "zod";

/**
 * The commands the last `duet ask` in a room left waiting, numbered as it listed
 * them, so `duet approve ROOM 1` works in the next command as `/approve 1` does
 * in `duet chat`. Kept per room and Worker under the CLI's state folder.
 */

const storedSchema = z.object({ baseUrl: z.string(), pending: z.array(pendingApprovalSchema) });

const fileOf = (dir: string, room: string) => join(dir, "cli-pending", `${room}.json`);

export function rememberPending(dir: string, baseUrl: string, room: string, pending: readonly PendingApproval[]): void {
  const file = fileOf(dir, room);
  mkdirSync(join(dir, "cli-pending"), { recursive: true });
  writeFileSync(`${file}.tmp`, JSON.stringify({ baseUrl, pending }));
  renameSync(`${file}.tmp`, file);
}

/** What the last answer in `room` at `baseUrl` listed ([] when nothing is known). */
export function recallPending(dir: string, baseUrl: string, room: string): PendingApproval[] {
  try {
    const stored = storedSchema.parse(JSON.parse(readFileSync(fileOf(dir, room), "utf8")));
    return stored.baseUrl === baseUrl ? stored.pending : [];
  } catch {
    return [];
  }
}
