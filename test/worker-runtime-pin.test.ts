import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { REPO_ROOT } from "./helpers/worker.ts";

// The tests start the Worker on Miniflare directly (test/helpers/worker.ts) and `pnpm dev` starts it through
// wrangler: both must run the same workerd, so the Miniflare the tests import is the one wrangler ships with.
describe("the test Worker's runtime", () => {
  it("is the Miniflare (and so the workerd) wrangler itself runs", () => {
    const ours = JSON.parse(readFileSync(join(REPO_ROOT, "package.json"), "utf8")).devDependencies.miniflare;
    const wranglerPackage = createRequire(join(REPO_ROOT, "package.json")).resolve("wrangler/package.json");
    const wranglers = JSON.parse(readFileSync(wranglerPackage, "utf8")).dependencies.miniflare;
    expect(ours).toBe(wranglers);
  });
});
