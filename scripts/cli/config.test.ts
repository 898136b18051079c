import { mkdtempSync, rmSync, writeFileSync, existsSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { CliConfigError, loadCliConfig } from "./config.ts";

const dirs: string[] = [];
const tempHome = () => {
  const dir = mkdtempSync(join(tmpdir(), "duet-cli-config-"));
  dirs.push(dir);
  return dir;
};
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

describe("loadCliConfig", () => {
  it("prefers DUET_API_TOKEN and DUET_WORKER_URL from the environment", () => {
    expect(loadCliConfig({ DUET_API_TOKEN: "t0k", DUET_WORKER_URL: "http://127.0.0.1:9999" })).toMatchObject({
      baseUrl: "http://127.0.0.1:9999",
      token: "t0k",
      tokenSource: "DUET_API_TOKEN",
    });
  });

  it("reads the token pnpm dev saved, and follows DUET_WORKER_PORT", () => {
    const home = tempHome();
    writeFileSync(join(home, "tokens.env"), "DUET_API_TOKEN=from-file\nSANDBOX_TOKEN=other\n");
    expect(loadCliConfig({ DUET_HOME: home, DUET_WORKER_PORT: "9100" })).toMatchObject({
      baseUrl: "http://127.0.0.1:9100",
      token: "from-file",
      tokenSource: join(home, "tokens.env"),
    });
  });

  it("never creates a token: without one it says how to get one", () => {
    const home = tempHome();
    expect(() => loadCliConfig({ DUET_HOME: home })).toThrow(CliConfigError);
    expect(() => loadCliConfig({ DUET_HOME: home })).toThrow(/set DUET_API_TOKEN, or start `npm run dev` once/);
    expect(existsSync(join(home, "tokens.env"))).toBe(false);
  });

  it("refuses a Worker URL that is not http(s)", () => {
    expect(() => loadCliConfig({ DUET_API_TOKEN: "t", DUET_WORKER_URL: "127.0.0.1:8787" })).toThrow(/DUET_WORKER_URL must be an http\(s\) URL/);
  });
});
