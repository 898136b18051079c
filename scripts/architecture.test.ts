import { readdirSync, readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { ARCHITECTURE, PICTURE_END, PICTURE_START, rankPicture, tableFolders, WORKER_SRC, withPicture } from "./architecture-map.ts";
import { WORKER_RANKS } from "./import-ranks.ts";

/**
 * ARCHITECTURE.md's map of the Worker is the one the import checker enforces:
 * its picture is drawn from the declared ranks (arrows only from a rank to the
 * one below), and its folder table names every folder of worker/src and no other.
 */

const markdown = readFileSync(ARCHITECTURE, "utf8");
const folders = readdirSync(WORKER_SRC, { withFileTypes: true })
  .filter((e) => e.isDirectory())
  .map((e) => e.name)
  .sort();

describe("ARCHITECTURE.md's map of worker/src", () => {
  it("draws the ranks scripts/import-ranks.ts declares (npx tsx scripts/architecture-map.ts redraws it)", () => {
    expect(withPicture(markdown, rankPicture(WORKER_SRC, WORKER_RANKS))).toBe(markdown);
  });

  it("ranks every folder of worker/src once, and draws each folder once", () => {
    const ranked = WORKER_RANKS.flat().filter((f) => f !== "." && !f.endsWith(".ts"));
    expect([...ranked].sort()).toEqual(folders);
    const picture = markdown.slice(markdown.indexOf(PICTURE_START), markdown.indexOf(PICTURE_END));
    for (const folder of folders) expect(picture.match(new RegExp(`(^|\\s)${folder}/(\\s|$)`, "gm")), folder).toHaveLength(1);
  });

  it("lists every folder of worker/src in its table, and no folder that does not exist", () => {
    expect([...tableFolders(markdown)].sort()).toEqual(folders);
  });

  it("finds a folder left out of the table and one listed that is not there", () => {
    const table = markdown.replace(/^\| `outbox\/` \|.*\n/m, "").replace("| `http/` |", "| `gone/` | a folder that was removed |\n| `http/` |");
    expect(tableFolders(table)).toContain("gone");
    expect(tableFolders(table)).not.toContain("outbox");
    expect(() => withPicture("# no picture here\n", "")).toThrow(/no .* block/);
  });
});
