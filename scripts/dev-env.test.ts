import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { asOtherUser, canActAsOtherUser } from "../test/helpers/other-user.ts";
import { devTokens, ensurePrivateDir } from "./dev-env.ts";

// What `pnpm dev` keeps in DUET_HOME is for the user who runs it only.

let scratch: string;
beforeEach(() => {
  scratch = mkdtempSync(join(tmpdir(), "duet-home-test-"));
  // World-enterable, as a home directory often is: only DUET_HOME's own modes may protect it.
  chmodSync(scratch, 0o755);
});
afterEach(() => rmSync(scratch, { recursive: true, force: true }));

const modeOf = (path: string) => statSync(path).mode & 0o777;

describe("devTokens", () => {
  it("makes an existing tokens.env that others could read 0600 before it writes a fresh SANDBOX_TOKEN into it", () => {
    const file = join(scratch, "tokens.env");
    writeFileSync(file, "DUET_API_TOKEN=kept-api-token\n", { mode: 0o644 });
    chmodSync(file, 0o644);

    const tokens = devTokens(file, {});
    expect(tokens.DUET_API_TOKEN).toBe("kept-api-token");
    expect(readFileSync(file, "utf8")).toBe(`DUET_API_TOKEN=kept-api-token\nSANDBOX_TOKEN=${tokens.SANDBOX_TOKEN}\n`);
    expect(modeOf(file)).toBe(0o600);
    if (canActAsOtherUser) expect(asOtherUser(["cat", file]).stderr).toContain("Permission denied");
  });

  it("leaves no tokens.env readable by others even when it has nothing new to write", () => {
    const file = join(scratch, "tokens.env");
    writeFileSync(file, "DUET_API_TOKEN=a\nSANDBOX_TOKEN=b\n", { mode: 0o644 });
    chmodSync(file, 0o644);
    expect(devTokens(file, {})).toEqual({ DUET_API_TOKEN: "a", SANDBOX_TOKEN: "b" });
    expect(modeOf(file)).toBe(0o600);
  });

  it("makes DUET_HOME, new or already 0755, a folder other local users cannot list", () => {
    const fresh = join(scratch, "fresh");
    const old = join(scratch, "old");
    mkdirSync(old, { mode: 0o755 });
    chmodSync(old, 0o755);
    for (const home of [fresh, old]) {
      devTokens(join(home, "tokens.env"), {});
      // 0711 as root: the sandbox's uid passes through it to sandboxes/, but lists nothing.
      expect(modeOf(home)).toBe(process.getuid?.() === 0 ? 0o711 : 0o700);
      if (canActAsOtherUser) expect(asOtherUser(["ls", home]).stderr).toContain("Permission denied");
    }
  });
});

describe("ensurePrivateDir (the Worker's state folder, --persist-to)", () => {
  it.each([["a new", false], ["an existing 0755", true]])("makes %s folder one other local users cannot enter", (_name, exists) => {
    const state = join(scratch, "state");
    if (exists) mkdirSync(state, { mode: 0o755 });
    writeFileSync(join(ensurePrivateDir(state), "room.sqlite"), "rows");
    expect(modeOf(state)).toBe(0o700);
    if (canActAsOtherUser) expect(asOtherUser(["cat", join(state, "room.sqlite")]).stderr).toContain("Permission denied");
  });
});
