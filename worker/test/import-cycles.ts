/**
 * Reports import circles among the files under a folder (default worker/src),
 * type-only imports included: `npx tsx worker/test/import-cycles.ts [dir]`.
 * Reads `import ... from`, `import type ... from`, `export ... from` and
 * bare `import "..."` statements, follows relative paths only, and exits 1
 * when any file can reach itself again. Dependency-free on purpose, so it runs
 * anywhere the repository does.
 */
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";

const STATEMENT = /(?:^|\n)\s*(?:import|export)\s+(?:type\s+)?(?:[^'";]*?\s+from\s+)?["']([^"']+)["']/g;

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return name === "node_modules" ? [] : sources(path);
    return /\.tsx?$/.test(name) && !/\.d\.ts$/.test(name) ? [path] : [];
  });
}

function resolveImport(from: string, spec: string): string | null {
  if (!spec.startsWith(".")) return null;
  const base = resolve(dirname(from), spec);
  for (const candidate of [base, `${base}.ts`, join(base, "index.ts")]) if (existsSync(candidate) && statSync(candidate).isFile()) return candidate;
  return null;
}

export function importGraph(files: string[]): Map<string, string[]> {
  const inside = new Set(files);
  const graph = new Map<string, string[]>();
  for (const file of files) {
    const text = readFileSync(file, "utf8");
    const targets = new Set<string>();
    for (const m of text.matchAll(STATEMENT)) {
      const target = resolveImport(file, m[1]);
      if (target && inside.has(target)) targets.add(target);
    }
    graph.set(file, [...targets]);
  }
  return graph;
}

/** Each strongly connected group of more than one file (or a file importing itself): Tarjan's algorithm. */
export function circles(graph: Map<string, string[]>): string[][] {
  let index = 0;
  const idx = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (v: string) => {
    idx.set(v, index);
    low.set(v, index++);
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!idx.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, idx.get(w)!));
    }
    if (low.get(v) === idx.get(v)) {
      const group: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        group.push(w);
      } while (w !== v);
      if (group.length > 1 || (graph.get(v) ?? []).includes(v)) found.push(group.sort());
    }
  };
  for (const v of graph.keys()) if (!idx.has(v)) visit(v);
  return found;
}

const dir = resolve(process.argv[2] ?? join(import.meta.dirname, "../src"));
const groups = circles(importGraph(sources(dir)));
if (groups.length === 0) {
  console.log(`no import circles under ${relative(process.cwd(), dir) || "."}`);
} else {
  for (const g of groups) console.log(`circle of ${g.length} files:\n  ${g.map((f) => relative(process.cwd(), f)).join("\n  ")}`);
  process.exitCode = 1;
}
