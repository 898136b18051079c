import type { Spelling } from "@duet/shared";

/**
 * How Duet's commands are typed in the terminal, for the examples in usage
 * sentences: `duet schedule demo "every 2h" "check disk space"` for the CLI's
 * arguments (the room after the command, an argument with spaces quoted so
 * the shell keeps it whole), `/schedule every 2h check disk space` inside
 * `duet chat`.
 */

export function cliSpelling(room: string): Spelling {
  return (sub, ...args) => ["duet", sub, room, ...args.map((a) => (/[\s'"]/.test(a) ? `"${a.replace(/"/g, "")}"` : a))].join(" ");
}

export const CHAT_LINE_SPELLING: Spelling = (sub, ...args) => [`/${sub}`, ...args].join(" ");
