import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { findCycles, findFolderCycles, importsInto, rankBreaks, specifiersOf } from "./check-imports.ts";
import { RANKS } from "./import-ranks.ts";

/**
 * The parts import downward only: no circle in the Worker, shared, either bot
 * or scripts; and scripts reach the Worker over HTTP, never by importing its source.
 */

const repo = join(dirname(new URL(import.meta.url).pathname), "..");
const CHECKED = ["worker/src", "shared/src", "bots/slack/src", "bots/discord/src", "scripts"];

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

  // Ranks are declared (import-ranks.ts) for the folders whose layering they keep: the Worker's, shared's and each bot's.
  for (const [root, ranks] of Object.entries(RANKS)) {
    it(`has no folder loop in ${root}, and each folder there imports only folders ranked below it`, () => {
      expect(findFolderCycles(join(repo, root), ranks)).toEqual([]);
      expect(rankBreaks(join(repo, root), ranks)).toEqual([]);
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

  it("names a folder loop no file circle shows, an import up the ranks or beside, and a folder the ranks leave out", () => {
    // storage and outbox import each other through different files: no file circle, one folder loop.
    write("ranked/storage/rows.ts", `import { COLUMNS } from "../outbox/columns.ts";\nexport const rows = COLUMNS;\n`);
    write("ranked/outbox/columns.ts", `export const COLUMNS = 1;\n`);
    write("ranked/outbox/outbox.ts", `import { rows } from "../storage/rows.ts";\nexport const outbox = rows;\n`);
    // turns sits above storage and outbox, and reaches up into room.
    write("ranked/turns/turn.ts", `import type { Room } from "../room/room.ts";\nimport { rows } from "../storage/rows.ts";\nexport type T = Room | typeof rows;\n`);
    write("ranked/room/room.ts", `export interface Room { id: string }\n`);
    write("ranked/config.ts", `export const config = {};\n`);
    write("ranked/index.ts", `export * from "./room/room.ts";\nexport * from "./config.ts";\n`);
    write("ranked/extra/x.ts", `import { config } from "../config.ts";\nexport const x = config;\n`);
    const root = join(dir, "ranked");
    const ranks = [["."], ["storage", "outbox"], ["turns"], ["room"], ["gone"], ["index.ts"]];

    expect(findCycles(root)).toEqual([]);
    expect(findFolderCycles(root, ranks)).toEqual([
      ["outbox", "storage", "outbox"],
    ]);
    expect(rankBreaks(root, ranks)).toEqual([
      "extra has no rank",
      "gone is ranked but holds no source",
      "outbox/outbox.ts → ../storage/rows.ts: outbox (rank 2) imports storage (rank 2, beside it)",
      "storage/rows.ts → ../outbox/columns.ts: storage (rank 2) imports outbox (rank 2, beside it)",
      "turns/turn.ts → ../room/room.ts: turns (rank 3) imports room (rank 4, above it)",
    ]);
  });

  it("with ranks of the folders only, names a loop through a top-level file and an import up the ranks, and needs no rank for a top-level file", () => {
    // control's blocks are what render.ts shows; a click in control that renders through render.ts closes a loop no file circle shows.
    write("bot/render.ts", `import { blocks } from "./control/blocks.ts";\nexport const render = blocks;\n`);
    write("bot/control/blocks.ts", `export const blocks = 1;\n`);
    write("bot/control/click.ts", `import { render } from "../render.ts";\nexport const click = render;\n`);
    // files sits below home, and reaches up into it.
    write("bot/files/out.ts", `import { home } from "../home/home.ts";\nexport const out = home;\n`);
    write("bot/home/home.ts", `import { blocks } from "../control/blocks.ts";\nexport const home = blocks;\n`);
    const root = join(dir, "bot");
    const ranks = [["control", "files"], ["home"]];

    expect(findCycles(root)).toEqual([]);
    expect(findFolderCycles(root, ranks)).toEqual([["control", "render.ts", "control"]]);
    expect(rankBreaks(root, ranks)).toEqual(["files/out.ts → ../home/home.ts: files (rank 1) imports home (rank 2, above it)"]);
  });
});
