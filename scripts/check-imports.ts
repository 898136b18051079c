import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve, sep } from "node:path";
import { fileURLToPath } from "node:url";
import { RANKS } from "./import-ranks.ts";

/** The repository, which RANKS' folders are relative to. */
const REPO = resolve(dirname(fileURLToPath(import.meta.url)), "..");

/**
 * The import graph of a folder of TypeScript, read as text with no compiler:
 * every `import … from`, `import type … from`, `export … from`, bare
 * `import "…"` and dynamic `import("…")` of each .ts file, relative specifiers resolved to files. It
 * reports circles (a file that, through its imports, imports itself), since a
 * part that calls up into its caller is a circle; folder loops (a folder that,
 * through its files, imports itself though no file does, also through a
 * top-level file of its own); imports against the ranks declared for a folder
 * (import-ranks.ts: worker/src's, shared/src's and each bot's folders import
 * only folders ranked below them); and says which files import from a folder
 * they must not (scripts/ speaks to the Worker over HTTP only).
 *
 *   tsx scripts/check-imports.ts shared/src bots/slack/src …   exit 1 on any of them
 */

/** Folders that hold no source of the part being checked. */
const SKIPPED_DIRS = new Set(["node_modules", "dist", ".git", ".wrangler", ".duet"]);

/**
 * An import or re-export statement at the start of a line; `[^;]*?` lets a
 * brace list span lines but never runs past the statement's end. A comment's
 * lines start with `*` or `//`, so an example in one is not read.
 */
const FROM_STATEMENT = /^[ \t]*(?:import|export)\b[^;]*?\bfrom\s*["']([^"']+)["']/gm;
const BARE_IMPORT = /^[ \t]*import\s*["']([^"']+)["']/gm;
/** `import("…")` with a literal specifier, on a line that is not a comment's: a value import made later is one all the same. */
const DYNAMIC_IMPORT = /^(?![ \t]*(?:\*|\/\/)).*?\bimport\(\s*["']([^"']+)["']\s*\)/gm;

export interface ImportEdge {
  /** The importing file, absolute. */
  from: string;
  /** The specifier as written. */
  specifier: string;
  /** The file a relative specifier names, absolute; null for a package or a file that does not exist. */
  to: string | null;
}

/** Every .ts file under `root` (declaration files and skipped folders left out). */
export function sourceFiles(root: string): string[] {
  const out: string[] = [];
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      if (entry.isDirectory()) {
        if (!SKIPPED_DIRS.has(entry.name)) walk(join(dir, entry.name));
      } else if (entry.isFile() && entry.name.endsWith(".ts") && !entry.name.endsWith(".d.ts")) {
        out.push(join(dir, entry.name));
      }
    }
  };
  walk(resolve(root));
  return out.sort();
}

/** The specifiers a file imports or re-exports, in order. */
export function specifiersOf(source: string): string[] {
  const found: { at: number; spec: string }[] = [];
  for (const re of [FROM_STATEMENT, BARE_IMPORT, DYNAMIC_IMPORT]) {
    for (const m of source.matchAll(re)) found.push({ at: m.index ?? 0, spec: m[1] });
  }
  return found.sort((a, b) => a.at - b.at).map((f) => f.spec);
}

/** The file a relative specifier names: as written, with `.ts`, `.js` read as `.ts`, or a folder's index.ts. */
export function resolveSpecifier(fromFile: string, specifier: string): string | null {
  if (!specifier.startsWith(".")) return null;
  const base = resolve(dirname(fromFile), specifier);
  const candidates = [base, `${base}.ts`, base.replace(/\.js$/, ".ts"), join(base, "index.ts")];
  return candidates.find((c) => c.endsWith(".ts") && existsSync(c) && statSync(c).isFile()) ?? null;
}

export function importsOf(file: string): ImportEdge[] {
  return specifiersOf(readFileSync(file, "utf8")).map((specifier) => ({ from: file, specifier, to: resolveSpecifier(file, specifier) }));
}

/**
 * The circles among the files under `root`: each strongly connected group of
 * files (Tarjan's algorithm), given as one path round it that starts and ends
 * at the same file, paths relative to `root`.
 */
export function findCycles(root: string): string[][] {
  const files = sourceFiles(root);
  const inside = new Set(files);
  const graph = new Map<string, string[]>();
  for (const f of files) graph.set(f, [...new Set(importsOf(f).flatMap((e) => (e.to && inside.has(e.to) ? [e.to] : [])))]);
  const rel = (f: string) => relative(resolve(root), f).split(sep).join("/");
  return circlesOf(graph).map((c) => c.map(rel));
}

/**
 * Each strongly connected group of the graph (Tarjan's algorithm) that is a
 * circle, given as one path round it from its first node in name order back to itself.
 */
function circlesOf(graph: Map<string, string[]>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const onStack = new Set<string>();
  const stack: string[] = [];
  const groups: string[][] = [];
  let next = 0;
  // Recursive: an import chain is as deep as the folder's layering, tens at most.
  const visit = (v: string) => {
    index.set(v, next);
    low.set(v, next++);
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v)!) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) {
        low.set(v, Math.min(low.get(v)!, index.get(w)!));
      }
    }
    if (low.get(v) !== index.get(v)) return;
    const group: string[] = [];
    let w: string;
    do {
      w = stack.pop()!;
      onStack.delete(w);
      group.push(w);
    } while (w !== v);
    if (group.length > 1 || graph.get(v)!.includes(v)) groups.push(group);
  };
  for (const v of [...graph.keys()].sort()) if (!index.has(v)) visit(v);
  return groups.map((g) => circleThrough(g, graph));
}

/** A file's path under `root`, with forward slashes. */
function relativePath(root: string, file: string): string {
  return relative(resolve(root), file).split(sep).join("/");
}

/**
 * The part of `root` a file belongs to: its first folder under `root`, or, for
 * a file at the top, its name when `named` lists it (an entry ranked on its
 * own), else "." (the top-level files together).
 */
export function folderOf(root: string, file: string, named: ReadonlySet<string> = new Set()): string {
  const path = relativePath(root, file);
  const slash = path.indexOf("/");
  if (slash >= 0) return path.slice(0, slash);
  return named.has(path) ? path : ".";
}

/** Every import from one folder of `root` into another, as [from folder, to folder, the import]. */
function folderEdges(root: string, named: ReadonlySet<string>): [string, string, ImportEdge][] {
  const top = resolve(root) + sep;
  const edges: [string, string, ImportEdge][] = [];
  for (const file of sourceFiles(root)) {
    for (const e of importsOf(file)) {
      if (!e.to || !e.to.startsWith(top)) continue;
      const from = folderOf(root, file, named);
      const to = folderOf(root, e.to, named);
      if (from !== to) edges.push([from, to, e]);
    }
  }
  return edges;
}

/**
 * The loops among the folders of `root`: folders that, through their files'
 * imports, import themselves, though no file does. Each as a path round it,
 * e.g. ["outbox", "storage", "outbox"]. With ranks that place ".", the
 * top-level files are one unit, as ranked (those ranked on their own apart);
 * otherwise each top-level file is one on its own, so a folder that imports
 * itself through a top-level file is a loop too.
 */
export function findFolderCycles(root: string, ranks?: readonly (readonly string[])[]): string[][] {
  const named = unitsNamed(root, ranks);
  const graph = new Map<string, string[]>();
  for (const file of sourceFiles(root)) if (!graph.has(folderOf(root, file, named))) graph.set(folderOf(root, file, named), []);
  for (const [from, to] of folderEdges(root, named)) if (!graph.get(from)!.includes(to)) graph.get(from)!.push(to);
  return circlesOf(graph);
}

/**
 * The top-level files that are a unit on their own: those the ranks name when
 * they rank the top-level files together ("."), else every one (with no
 * ranks, or ranks of the folders only).
 */
function unitsNamed(root: string, ranks?: readonly (readonly string[])[]): Set<string> {
  if (ranks && ranksTopLevel(ranks)) return new Set(ranks.flat().filter((f) => f.endsWith(".ts")));
  return new Set(sourceFiles(root).map((f) => relativePath(root, f)).filter((p) => !p.includes("/")));
}

/** Whether the ranks place the top-level files ("."); ranks of the folders only leave each top-level file unranked, checked for loops alone. */
function ranksTopLevel(ranks: readonly (readonly string[])[]): boolean {
  return ranks.some((rank) => rank.includes("."));
}

/**
 * What breaks the ranks declared for `root` (lowest first, see import-ranks.ts):
 * a folder with no rank, a ranked folder that does not exist, and each import
 * from a folder into one not ranked below it, as
 * `storage/turn-rows.ts → ../outbox/columns.ts: storage (rank 3) imports outbox (rank 4)`.
 */
export function rankBreaks(root: string, ranks: readonly (readonly string[])[]): string[] {
  const rankOf = new Map<string, number>();
  ranks.forEach((folders, i) => folders.forEach((f) => rankOf.set(f, i + 1)));
  const named = unitsNamed(root, ranks);
  const present = new Set(sourceFiles(root).map((f) => folderOf(root, f, named)));
  const breaks: string[] = [];
  // With ranks of the folders only, a top-level file is a unit of its own and needs no rank.
  const unranked = (unit: string) => !ranksTopLevel(ranks) && unit.endsWith(".ts") && !unit.includes("/");
  for (const f of [...present].sort()) if (!rankOf.has(f) && !unranked(f)) breaks.push(`${f} has no rank`);
  for (const f of rankOf.keys()) if (!present.has(f)) breaks.push(`${f} is ranked but holds no source`);
  for (const [from, to, e] of folderEdges(root, named)) {
    const a = rankOf.get(from);
    const b = rankOf.get(to);
    if (a === undefined || b === undefined || b < a) continue;
    const how = b === a ? "beside it" : "above it";
    breaks.push(`${relativePath(root, e.from)} → ${e.specifier}: ${from} (rank ${a}) imports ${to} (rank ${b}, ${how})`);
  }
  return breaks;
}

/** One path from the group's first file (in name order) back to itself, staying inside the group. */
function circleThrough(group: string[], graph: Map<string, string[]>): string[] {
  const members = new Set(group);
  const start = [...group].sort()[0];
  const cameFrom = new Map<string, string>();
  const queue = [start];
  while (queue.length) {
    const v = queue.shift()!;
    for (const w of graph.get(v)!) {
      if (!members.has(w)) continue;
      if (w === start) {
        const path = [start];
        for (let at = v; at !== start; at = cameFrom.get(at)!) path.splice(1, 0, at);
        return [...path, start];
      }
      if (!cameFrom.has(w)) {
        cameFrom.set(w, v);
        queue.push(w);
      }
    }
  }
  return [start, start];
}

/**
 * The imports of files under `root` that reach into `forbidden` (a folder) or
 * name one of `forbiddenPackages`, as `file → specifier`, paths relative to `root`.
 */
export function importsInto(root: string, forbidden: string, forbiddenPackages: readonly string[] = []): string[] {
  const dir = resolve(forbidden) + sep;
  const hits: string[] = [];
  for (const file of sourceFiles(root)) {
    for (const e of importsOf(file)) {
      const intoDir = resolveSpecifierLoosely(file, e.specifier).startsWith(dir);
      const intoPackage = forbiddenPackages.some((p) => e.specifier === p || e.specifier.startsWith(`${p}/`));
      if (intoDir || intoPackage) hits.push(`${relative(resolve(root), file).split(sep).join("/")} → ${e.specifier}`);
    }
  }
  return hits;
}

/** Where a relative specifier points, whether or not the file exists (a forbidden import is one even when broken). */
function resolveSpecifierLoosely(fromFile: string, specifier: string): string {
  return specifier.startsWith(".") ? resolve(dirname(fromFile), specifier) : "";
}

function main(roots: string[]): number {
  if (roots.length === 0) {
    console.error("usage: tsx scripts/check-imports.ts DIR [DIR…]   (e.g. shared/src bots/slack/src worker/src)");
    return 2;
  }
  let found = 0;
  const report = (root: string, line: string) => {
    found++;
    console.log(`${root}: ${line}`);
  };
  for (const root of roots) {
    if (!existsSync(root)) {
      console.error(`check-imports: ${root} does not exist`);
      return 2;
    }
    const ranks = RANKS[relativePath(REPO, root)];
    for (const cycle of findCycles(root)) report(root, cycle.join(" → "));
    // Folders are checked where their ranks are declared.
    if (!ranks) continue;
    for (const cycle of findFolderCycles(root, ranks)) report(root, `folder loop ${cycle.join(" → ")}`);
    for (const line of rankBreaks(root, ranks)) report(root, line);
  }
  console.log(found ? `check-imports: ${found} import circle${found === 1 ? "" : "s"}, folder loop${found === 1 ? "" : "s"} or rank break${found === 1 ? "" : "s"}` : `check-imports: no import circles, folder loops or rank breaks in ${roots.join(", ")}`);
  return found ? 1 : 0;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) process.exitCode = main(process.argv.slice(2));
