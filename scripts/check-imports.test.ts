import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { findCycles, importsInto, specifiersOf } from "./check-imports.ts";

/**
 * The parts import downward only: no circle in the Worker, shared, either bot
 * or scripts; and scripts reach the Worker over HTTP, never by importing its source.
 */

const repo = join(dirname(new URL(import.meta.url).pathname), "..");
const CHECKED = ["worker/src", "shared/src", "bots/slack/src", "bots/discord/src", "scripts"];
/** [a Worker folder, a folder above it in ARCHITECTURE.md's picture]: no import may point up. */
const WORKER_BELOW = [
  ["installations", "http"],
  ["installations", "reply"],
  ["model", "http"],
  ["model", "reply"],
  ["github", "http"],
  ["github", "reply"],
  ["github", "room"],
] as const;

describe("the import graph", () => {
  for (const root of CHECKED) {
    it(`has no import circle in ${root}`, () => {
      expect(findCycles(join(repo, root))).toEqual([]);
    });
  }

  it("lets scripts/ import nothing from worker/src", () => {
    expect(importsInto(join(repo, "scripts"), join(repo, "worker/src"), ["@duet/worker"])).toEqual([]);
  });

  // Between packages a circle would run through these: shared sits under every front end and the Worker.
  it("lets shared/src import no front end and not the Worker", () => {
    expect(importsInto(join(repo, "shared/src"), join(repo, "bots"), ["@duet/slack", "@duet/discord", "@duet/worker"])).toEqual([]);
    expect(importsInto(join(repo, "shared/src"), join(repo, "worker/src"))).toEqual([]);
  });

  it("lets worker/src import no bot, and neither bot the other", () => {
    expect(importsInto(join(repo, "worker/src"), join(repo, "bots"), ["@duet/slack", "@duet/discord"])).toEqual([]);
    expect(importsInto(join(repo, "bots/slack/src"), join(repo, "bots/discord"), ["@duet/discord"])).toEqual([]);
    expect(importsInto(join(repo, "bots/discord/src"), join(repo, "bots/slack"), ["@duet/slack"])).toEqual([]);
  });

  // Parts of the Worker below http/ and reply/ that once reached up into them for a helper.
  for (const [part, above] of WORKER_BELOW) {
    it(`lets worker/src/${part} import nothing from worker/src/${above}`, () => {
      expect(importsInto(join(repo, "worker/src", part), join(repo, "worker/src", above))).toEqual([]);
    });
  }
});

describe("the import checker", () => {
  const dir = mkdtempSync(join(tmpdir(), "check-imports-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const write = (path: string, text: string) => {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), text);
  };

  it("finds a planted circle, through a type-only import and a re-export", () => {
    write("circle/a.ts", `import { b } from "./b.ts";\nexport const a = b;\n`);
    write("circle/b.ts", `import type {\n  C,\n} from "./c";\nexport const b = 1 as C;\n`);
    write("circle/c.ts", `export { a as C } from "./a.ts";\n`);
    write("circle/leaf.ts", `import { a } from "./a.ts";\nimport "node:fs";\n`);
    expect(findCycles(join(dir, "circle"))).toEqual([["a.ts", "b.ts", "c.ts", "a.ts"]]);
  });

  it("finds no circle where imports only go down, and reads none from comments", () => {
    write("tree/top.ts", `import { low } from "./parts/index.ts";\nexport const top = low;\n`);
    write("tree/parts/index.ts", `export { low } from "./low.ts";\n`);
    write("tree/parts/low.ts", `/**\n * import { top } from "../top.ts";\n */\n// import { top } from "../top.ts";\nexport const low = 1;\n`);
    expect(findCycles(join(dir, "tree"))).toEqual([]);
  });

  it("names a file that imports from a forbidden folder", () => {
    write("app/tool.ts", `import { x } from "../lib/x.ts";\nimport { y } from "@duet/worker/y";\n`);
    write("lib/x.ts", `export const x = 1;\n`);
    expect(importsInto(join(dir, "app"), join(dir, "lib"), ["@duet/worker"])).toEqual(["tool.ts → ../lib/x.ts", "tool.ts → @duet/worker/y"]);
  });

  it("reads a statement's specifier wherever its brace list ends", () => {
    expect(specifiersOf(`import {\n  a,\n  b,\n} from "./ab.ts";\nexport type { T } from './t.ts';\nconst s = "x from 'y'";\n`)).toEqual(["./ab.ts", "./t.ts"]);
  });

  it("finds a circle closed by a dynamic import, and reads none from a comment", () => {
    write("lazy/a.ts", `import { b } from "./b.ts";\nexport const a = b;\n`);
    write("lazy/b.ts", `export const b = 1;\nexport const later = () => import("./a.ts");\n// const c = await import("./c.ts");\n`);
    expect(findCycles(join(dir, "lazy"))).toEqual([["a.ts", "b.ts", "a.ts"]]);
    expect(specifiersOf(` * import("./c.ts") in a doc comment\n`)).toEqual([]);
  });
});
