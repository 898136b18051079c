import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { bundleProduction, configWithoutContainers, type ProductionBundle } from "./helpers/production-bundle.ts";
import { REPO_ROOT } from "./helpers/worker.ts";

/** The production Worker bundles as `wrangler deploy` would upload it (the container image is left to the real deploy). */

describe("the production Worker", () => {
  let bundle: ProductionBundle | undefined;
  afterAll(() => bundle?.remove());

  it("builds with wrangler deploy --dry-run --env production, with every production binding", async () => {
    bundle = await bundleProduction();
    expect(bundle.code, bundle.output).toBe(0);
    expect(bundle.output).toContain("--dry-run: exiting now.");
    for (const binding of ["env.DUET_AGENT (DuetAgent)", "env.Sandbox (Sandbox)", "env.WORKSPACES (duet-workspaces)", "env.AI", 'env.MODEL_PROVIDER ("workers-ai")']) {
      expect(bundle.output).toContain(binding);
    }
    const code = readFileSync(bundle.file, "utf8");
    // Both Durable Object classes the production config binds are exported by the bundle.
    expect(code).toMatch(/export\s*\{[^}]*\bDuetAgent\b[^}]*\}/);
    expect(code).toMatch(/export\s*\{[^}]*\bSandbox\b[^}]*\}/);
    // The bots' Prometheus registry (prom-client, Node-only) stays out of the Worker.
    expect(code).not.toContain("duet_acks_total");
    expect(code).not.toContain("collectDefaultMetrics");
    // Traces are made and sent by the small span model in shared/src/trace: no OpenTelemetry SDK in the Worker.
    expect(code).toContain("invoke_agent");
    expect(code).not.toMatch(/@opentelemetry|BasicTracerProvider|BatchSpanProcessor/);
    expect(bundle.gzipBytes).toBeGreaterThan(0);
    expect(bundle.gzipBytes).toBeLessThan(bundle.bytes);
  }, 180_000);

  it("is built from wrangler.toml less only its container tables", () => {
    const original = readFileSync(join(REPO_ROOT, "wrangler.toml"), "utf8");
    const generated = configWithoutContainers(original);
    expect(original).toContain("[[env.production.containers]]");
    expect(generated).not.toMatch(/containers\]\]|image\s*=/);
    const tables = (toml: string) => toml.split("\n").filter((l) => l.startsWith("["));
    expect(tables(generated)).toEqual(tables(original).filter((t) => t !== "[[env.production.containers]]"));
    expect(generated).toContain(`main = ${JSON.stringify(join(REPO_ROOT, "worker/src/index.ts"))}`);
  });
});
