import { spawn, execFileSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { compareTable, KEY_GROUPS, readRun, type RunFigures } from "./compare.ts";
import { machine } from "./report.ts";

/**
 * `pnpm bench:against <commit> [groups…] [--rounds k] [--keep]` (or
 * `pnpm bench --against <commit> …`): this tree's figures beside an older
 * commit's, measured in one run on the same machine, since figures from
 * different days differ more than a change does. The commit is checked out
 * as a throwaway git worktree under the OS temp dir (reused while it is
 * there), its dependencies installed, and the chosen groups (by default the
 * ones behind the key figures: rows per turn, the side-by-side ratios, first
 * visible text, idle memory and bot overhead) run from the old tree and from this one
 * alternately, k rounds each, each run in its own process. Each run writes
 * its results into a temp dir, never this tree's RESULTS.md or results.json.
 * Prints one table (figure, old median, new median, new ÷ old) and writes it
 * beside the runs' results. The worktree is removed at the end unless --keep
 * (a run stopped midway leaves it, and the next run for that commit reuses it).
 */

const here = fileURLToPath(new URL("..", import.meta.url));
const DEFAULT_ROUNDS = 3;

interface Options {
  commit: string;
  groups: string[];
  rounds: number;
  keep: boolean;
}

function usage(problem: string): never {
  console.error(`[against] ${problem}\nusage: pnpm bench:against <commit> [groups…] [--rounds k] [--keep]   (groups by default: ${KEY_GROUPS.join(" ")})`);
  process.exit(2);
}

export function parseArgs(argv: string[]): Options {
  const args = argv.filter((a) => a !== "--" && a !== "--against");
  let rounds = DEFAULT_ROUNDS;
  let keep = false;
  const words: string[] = [];
  for (let i = 0; i < args.length; i++) {
    if (args[i] === "--keep") keep = true;
    else if (args[i] === "--rounds") {
      rounds = Number(args[++i]);
      if (!Number.isInteger(rounds) || rounds < 1) usage(`--rounds takes a whole number of at least 1, not ${args[i] ?? "nothing"}`);
    } else if (args[i].startsWith("--")) usage(`unknown option ${args[i]}`);
    else words.push(args[i]);
  }
  const [commit, ...groups] = words;
  if (!commit) usage("name the commit to compare against");
  return { commit, groups: groups.length ? groups : [...KEY_GROUPS], rounds, keep };
}

const git = (args: string[], cwd = here) => execFileSync("git", args, { cwd, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] }).trim();

/** The groups a tree's `bench/run.ts` offers (its GROUPS list). */
function groupsOf(tree: string): string[] {
  const text = readFileSync(join(tree, "bench", "run.ts"), "utf8");
  const list = /const GROUPS = \[([^\]]*)\]/.exec(text)?.[1];
  if (!list) throw new Error(`${tree}/bench/run.ts has no GROUPS list to check the groups against`);
  return [...list.matchAll(/"([^"]+)"/g)].map((m) => m[1]);
}

/** The old commit's worktree, made (or found from an earlier --keep) under the temp dir, with its dependencies installed. */
function oldTree(sha: string): string {
  const dir = join(tmpdir(), `duet-bench-against-${sha.slice(0, 12)}`);
  const current = existsSync(join(dir, ".git")) ? (() => { try { return git(["rev-parse", "HEAD"], dir); } catch { return null; } })() : null;
  if (current !== sha) {
    rmSync(dir, { recursive: true, force: true });
    git(["worktree", "prune"]);
    console.log(`[against] checking out ${sha.slice(0, 12)} in ${dir}`);
    git(["worktree", "add", "--detach", dir, sha]);
  } else console.log(`[against] reusing ${dir}`);
  if (existsSync(join(dir, "scripts", "ensure-deps.mjs"))) {
    execFileSync(process.execPath, ["scripts/ensure-deps.mjs"], { cwd: dir, stdio: "inherit" });
  } else if (!existsSync(join(dir, "node_modules"))) {
    const install = (extra: string[]) => execFileSync("npx", ["-y", "pnpm@12.4.2", "install", "--frozen-lockfile", ...extra], { cwd: dir, stdio: "inherit" });
    try {
      install(["--offline"]);
    } catch {
      install([]);
    }
  }
  return dir;
}

/**
 * One `pnpm bench <groups>` in `tree`, in its own process, its output prefixed.
 * `out`: where this tree's report writes (DUET_BENCH_OUT); a tree whose report
 * does not read it writes into its own bench/, which only the old, throwaway
 * tree does here.
 */
function benchOnce(tree: string, groups: string[], out: string, label: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(join(tree, "node_modules", ".bin", "tsx"), ["bench/run.ts", ...groups], {
      cwd: tree,
      env: { ...process.env, DUET_BENCH_OUT: out },
      stdio: ["ignore", "pipe", "pipe"],
    });
    createInterface({ input: child.stdout }).on("line", (line) => console.log(`[${label}] ${line}`));
    createInterface({ input: child.stderr }).on("line", (line) => console.error(`[${label}] ${line}`));
    child.on("error", reject);
    child.on("exit", (code) => (code === 0 ? resolve() : reject(new Error(`${label}: pnpm bench exited with code ${code}`))));
  });
}

/** The whole comparison; `argv` as the command line gives it (after the script). */
export async function runAgainst(argv: string[]): Promise<void> {
  const opts = parseArgs(argv);
  let sha: string;
  try {
    sha = git(["rev-parse", "--verify", `${opts.commit}^{commit}`]);
  } catch {
    usage(`${opts.commit} is no commit of this repository`);
  }
  const newGroups = groupsOf(here);
  const unknownHere = opts.groups.filter((g) => !newGroups.includes(g));
  if (unknownHere.length) usage(`unknown group ${unknownHere.join(", ")}; the groups are: ${newGroups.join(", ")}`);
  const work = mkdtempSync(join(tmpdir(), "duet-bench-against-out-"));
  const tree = oldTree(sha);
  const started = Date.now();
  try {
    const missing = opts.groups.filter((g) => !groupsOf(tree).includes(g));
    if (missing.length) throw new Error(`${sha.slice(0, 12)}'s bench has no group ${missing.join(", ")}; it has: ${groupsOf(tree).join(", ")}`);
    const sides = { old: { tree, runs: [] as RunFigures[] }, new: { tree: here, runs: [] as RunFigures[] } };
    for (let round = 1; round <= opts.rounds; round++) {
      for (const side of ["old", "new"] as const) {
        const out = join(work, `${side}-${round}`);
        mkdirSync(out);
        // The old tree's report writes into its own bench/: no earlier run's figures may be read as this one's.
        const oldFile = join(tree, "bench", "results.json");
        if (side === "old") rmSync(oldFile, { force: true });
        console.log(`[against] round ${round}/${opts.rounds}: ${side} (${side === "old" ? sha.slice(0, 12) : "this tree"}), ${opts.groups.join(" ")}`);
        await benchOnce(sides[side].tree, opts.groups, out, `${side} ${round}`);
        const written = join(out, "results.json");
        if (side === "new" && !existsSync(written)) throw new Error(`this tree's bench wrote no ${written}: its report must honour DUET_BENCH_OUT`);
        const file = existsSync(written) ? written : oldFile;
        const figures = readRun(file, opts.groups);
        writeFileSync(join(out, "figures.json"), JSON.stringify(figures, null, 2));
        sides[side].runs.push(figures);
      }
    }
    const table = compareTable(sides.old.runs, sides.new.runs, { old: `${sha.slice(0, 7)} (median)`, now: "this tree (median)" });
    const problems = (["old", "new"] as const).flatMap((s) => sides[s].runs.flatMap((r, i) => r.problems.map((p) => `- ${s} round ${i + 1}: ${p}`)));
    const minutes = ((Date.now() - started) / 60_000).toFixed(1);
    const text = [
      `# ${sha.slice(0, 12)} against this tree (${git(["rev-parse", "--short", "HEAD"])}${git(["status", "--porcelain"]) ? ", with uncommitted changes" : ""})`,
      "",
      `\`pnpm bench ${opts.groups.join(" ")}\`, ${opts.rounds} round(s) each, old and new alternately, ${new Date().toISOString()} (${minutes} min) on ${machine()}.`,
      "Each cell is the median over the rounds of that run's median.",
      "",
      table,
      "",
      ...(problems.length ? ["Problems:", ...problems, ""] : []),
    ].join("\n");
    writeFileSync(join(work, "AGAINST.md"), text);
    console.log(`\n${text}\n[against] the table and each run's figures: ${work}`);
  } finally {
    if (opts.keep) console.log(`[against] kept ${tree} (--keep); remove it with: git worktree remove --force ${tree}`);
    else {
      git(["worktree", "remove", "--force", tree]);
      console.log(`[against] removed ${tree}`);
    }
  }
}

// Run as a script (pnpm bench:against); bench/run.ts calls runAgainst for `pnpm bench --against`.
if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  runAgainst(process.argv.slice(2)).then(
    () => process.exit(0),
    (err) => {
      console.error(`[against] ${(err as Error)?.message ?? err}`);
      process.exit(1);
    },
  );
}
