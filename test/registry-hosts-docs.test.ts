import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { REGISTRY_HOSTS } from "../worker/src/sandbox/registry-hosts.ts";
import { REPO_ROOT } from "./helpers/worker.ts";

/** The "Sandbox network" table in docs/configuration.md is what operators read: it must list exactly the hosts SANDBOX_NETWORK=registries opens. */
describe("the documented registry hosts", () => {
  it("match the list the Worker applies, row by row", () => {
    const readme = readFileSync(join(REPO_ROOT, "docs", "configuration.md"), "utf8");
    const section = readme.slice(readme.indexOf("## Sandbox network"), readme.indexOf("The list lives in"));
    const rows = [...section.matchAll(/^\| ([^|]+) \| (`[^|]+) \|$/gm)].map(([, what, hosts]) => ({
      what: what.trim(),
      hosts: [...hosts.matchAll(/`([^`]+)`/g)].map((m) => m[1]),
    }));
    expect(rows).toEqual(REGISTRY_HOSTS.map((r) => ({ what: r.what, hosts: [...r.hosts] })));
  });
});
