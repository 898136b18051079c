import { readFileSync, writeFileSync } from "node:fs";
import { dirname, join, relative, resolve, sep } from "node:path";
import { fileURLToPath } from "node:url";
import { sourceFiles } from "./check-imports.ts";
import { WORKER_RANKS } from "./import-ranks.ts";

/**
 * ARCHITECTURE.md's picture of the Worker's folders, drawn from the ranks the
 * import checker enforces (import-ranks.ts), so the map cannot say what the
 * checker does not: `npx tsx scripts/architecture-map.ts` redraws it, and
 * scripts/architecture.test.ts fails when it differs.
 */

const REPO = resolve(dirname(fileURLToPath(import.meta.url)), "..");
export const ARCHITECTURE = join(REPO, "ARCHITECTURE.md");
export const WORKER_SRC = join(REPO, "worker/src");

export const PICTURE_START = "<!-- worker/src's ranks, drawn from scripts/import-ranks.ts by `npx tsx scripts/architecture-map.ts`: edit the ranks, not this picture -->";
export const PICTURE_END = "<!-- end of worker/src's ranks -->";

/**
 * The ranks top first, one line each, an arrow down between them; "." is
 * shown with the top-level files it stands for (those not ranked on their own).
 */
export function rankPicture(root: string, ranks: readonly (readonly string[])[]): string {
  const named = new Set(ranks.flat());
  const topFiles = sourceFiles(root)
    .map((f) => relative(root, f).split(sep).join("/"))
    .filter((p) => !p.includes("/") && !p.endsWith(".test.ts") && !named.has(p))
    .map((p) => p.replace(/\.ts$/, ""));
  const label = (folder: string) => (folder === "." ? `(top-level files: ${topFiles.join(", ")})` : folder.endsWith(".ts") ? folder : `${folder}/`);
  const lines = [...ranks].reverse().map((rank) => `  ${rank.map(label).join("   ")}`);
  return ["```", lines.join("\n    │\n    v\n"), "```"].join("\n");
}

/** `markdown` with the text between the picture's markers replaced by `picture`; throws when the markers are missing. */
export function withPicture(markdown: string, picture: string): string {
  const start = markdown.indexOf(PICTURE_START);
  const end = markdown.indexOf(PICTURE_END);
  if (start < 0 || end < start) throw new Error(`ARCHITECTURE.md has no "${PICTURE_START}" … "${PICTURE_END}" block`);
  return `${markdown.slice(0, start + PICTURE_START.length)}\n${picture}\n${markdown.slice(end)}`;
}

/** The folders named in the first column of the Worker's table in ARCHITECTURE.md (`http/` → "http"). */
export function tableFolders(markdown: string): string[] {
  const start = markdown.indexOf("**`worker/src/`**");
  const end = markdown.indexOf("\n**`", start + 1);
  return [...markdown.slice(start, end).matchAll(/^\| `([^`/]+)\/` \|/gm)].map((m) => m[1]);
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  writeFileSync(ARCHITECTURE, withPicture(readFileSync(ARCHITECTURE, "utf8"), rankPicture(WORKER_SRC, WORKER_RANKS)));
  console.log("ARCHITECTURE.md: worker/src's picture redrawn from scripts/import-ranks.ts");
}
