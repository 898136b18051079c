import { existsSync, readFileSync, readdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { describe, expect, it } from "vitest";
import { ALL_SUBCOMMANDS } from "../scripts/cli/args.ts";
import { WEBHOOK_EVENTS } from "../worker/src/github/webhook-events.ts";
import { shellCommands } from "./helpers/doc-commands.ts";
import { REPO_ROOT } from "./helpers/worker.ts";

/**
 * The docs a newcomer follows cannot rot silently: the README stays short, every link
 * between them lands on a file and a heading that exist, and every shell command they
 * show names a script, a `duet` subcommand and settings that exist. (The README's CLI
 * lines are also run as written, against a real stack, in test/cli/npm-dev.test.ts.)
 */
const DOCS = ["README.md", "ARCHITECTURE.md", ...readdirSync(join(REPO_ROOT, "docs")).filter((f) => f.endsWith(".md")).map((f) => `docs/${f}`)];
const read = (path: string) => readFileSync(join(REPO_ROOT, path), "utf8");

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens. */
export function anchorOf(heading: string): string {
  return heading.trim().toLowerCase().replace(/[^\p{L}\p{N} _-]/gu, "").replace(/ /g, "-");
}

function anchorsIn(markdown: string): Set<string> {
  const outside = markdown.replace(/```[\s\S]*?```/g, "");
  return new Set([...outside.matchAll(/^#{1,6} (.+)$/gm)].map((m) => anchorOf(m[1]!)));
}

/** Links to files in the repository (not web addresses), as [text](target). */
function localLinks(markdown: string): string[] {
  return [...markdown.matchAll(/\]\(([^)\s]+)\)/g)].map((m) => m[1]!).filter((t) => !/^[a-z]+:/i.test(t));
}


const rootScripts = (JSON.parse(read("package.json")) as { scripts: Record<string, string> }).scripts;
const packageScripts = (name: string): Record<string, string> => {
  for (const dir of ["bots/slack", "bots/discord", "sandbox", "shared", "worker"]) {
    const path = join(REPO_ROOT, dir, "package.json");
    if (!existsSync(path)) continue;
    const pkg = JSON.parse(readFileSync(path, "utf8")) as { name: string; scripts?: Record<string, string> };
    if (pkg.name === name) return pkg.scripts ?? {};
  }
  return {};
};
/** Tools a reader brings, not Duet's: their commands are theirs to document. */
const OUTSIDE_TOOLS = new Set(["docker", "cp", "npx", "apt-get", "curl", "kubectl", "systemctl", "until"]);

/** What is wrong with one documented command, or null when everything it names exists. */
export function commandProblem(line: string, settings: ReadonlySet<string>): string | null {
  const words = line.split(/\s+/);
  while (/^[A-Z][A-Z0-9_]*=/.test(words[0] ?? "")) {
    const name = words.shift()!.split("=")[0]!;
    if (!settings.has(name)) return `sets ${name}, which no settings table documents`;
  }
  if (words[0] === "nohup") words.shift();
  const [tool, ...rest] = words;
  if (tool === "npm" && rest[0] === "test") return null;
  if (tool === "npm" || tool === "pnpm") {
    const args = tool === "npm" && rest[0] === "run" ? rest.slice(1).filter((w, i) => !(i === 0 && w === "-s")) : rest;
    if (args[0] === "--filter") return packageScripts(args[1]!)[args[2]!] ? null : `${args[1]} has no script ${args[2]}`;
    const script = args[0]!;
    if (!rootScripts[script]) return `no npm script ${script}`;
    if (script === "duet") {
      const sub = args[1] === "--" ? args[2] : args[1];
      if (sub && sub !== "help" && !ALL_SUBCOMMANDS.includes(sub)) return `duet has no command ${sub}`;
    }
    return null;
  }
  return OUTSIDE_TOOLS.has(tool!) ? null : `runs ${tool}, which is neither an npm script nor a known outside tool`;
}

describe("the docs", () => {
  it("keep the README short enough to finish: what Duet is, the two commands, a first conversation, where to read more", () => {
    const readme = read("README.md");
    expect(readme.split("\n").length).toBeLessThanOrEqual(250);
    expect(readme).toContain("npm run dev");
    expect(readme).toContain("npm test");
  });

  it("link only to files and headings that exist", () => {
    const broken: string[] = [];
    for (const doc of DOCS) {
      for (const link of localLinks(read(doc))) {
        const [file, anchor] = link.split("#");
        const target = file ? join(dirname(doc), file) : doc;
        if (!existsSync(join(REPO_ROOT, target))) broken.push(`${doc}: ${link} (no such file)`);
        else if (anchor && target.endsWith(".md") && !anchorsIn(read(target)).has(anchor)) broken.push(`${doc}: ${link} (no such heading)`);
      }
    }
    expect(broken).toEqual([]);
  });

  it("show only commands whose scripts, subcommands and settings exist", () => {
    const all = DOCS.map(read).join("\n");
    // A setting is documented when it heads a row of some table: `NAME` in the first cell.
    const settings = new Set(
      all.split("\n").filter((l) => l.startsWith("| `")).flatMap((row) => [...row.split(" | ")[0]!.matchAll(/`([A-Z][A-Z0-9_]+)`/g)].map((m) => m[1]!)),
    );
    const problems = DOCS.flatMap((doc) => shellCommands(read(doc)).map((line) => [doc, line, commandProblem(line, settings)] as const))
      .filter(([, , problem]) => problem)
      .map(([doc, line, problem]) => `${doc}: ${line}: ${problem}`);
    expect(problems).toEqual([]);
    expect(DOCS.flatMap((doc) => shellCommands(read(doc))).length).toBeGreaterThan(20);
  });

  it("the checks catch what they guard: a missing script, a misspelt subcommand, an undocumented setting", () => {
    const settings = new Set(["MODEL"]);
    expect(commandProblem("npm run -s duet -- histroy demo", settings)).toBe("duet has no command histroy");
    expect(commandProblem("pnpm deploy-everything", settings)).toBe("no npm script deploy-everything");
    expect(commandProblem("MODEL=x NOT_A_SETTING=1 npm run dev", settings)).toBe("sets NOT_A_SETTING, which no settings table documents");
    expect(commandProblem("rm -rf /", settings)).toMatch(/neither an npm script/);
    expect(anchorOf("Many replicas: docker-compose.yml")).toBe("many-replicas-docker-composeyml");
  });

  it("set up GitHub's webhook as the Worker serves it: its path, every event it acts on, and settings the tables document", () => {
    const section = /## GitHub's webhook\n([\s\S]*?)\n## /.exec(read("docs/deploying.md"))?.[1] ?? "";
    expect(section).toContain("/github/webhook`");
    for (const event of WEBHOOK_EVENTS) expect(section).toContain(`\`${event}\``);
    const documented = new Set(
      read("docs/configuration.md").split("\n").filter((l) => l.startsWith("| `")).flatMap((row) => [...row.split(" | ")[0]!.matchAll(/`([A-Z][A-Z0-9_]+)`/g)].map((m) => m[1]!)),
    );
    const named = [...section.matchAll(/\b(GITHUB_[A-Z0-9_]+)\b/g)].map((m) => m[1]!);
    expect(named).toContain("GITHUB_WEBHOOK_SECRET");
    expect(named.filter((n) => !documented.has(n))).toEqual([]);
  });
});
