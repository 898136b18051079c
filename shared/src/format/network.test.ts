import { describe, expect, it } from "vitest";
import type { InfoResponse } from "../wire/schemas.ts";
import { describeNetwork } from "./network.ts";

const info = (network: InfoResponse["sandbox"]["network"], allowedHosts: string[] = [], deniedHosts: string[] = []): InfoResponse => ({
  sandbox: { provider: "cloudflare", network, allowedHosts, deniedHosts },
});

describe("describeNetwork", () => {
  it("says installs fail when the sandbox has no network", () => {
    expect(describeNetwork(info("none"))).toBe(
      "The sandbox has no network access: `pip install`, `npm install` and downloads fail.",
    );
  });

  it("says installs work from the registries, and names the hosts added and blocked", () => {
    const s = describeNetwork(info("registries", ["pkgs.example.com"], ["gitlab.com"]));
    expect(s).toContain("package registries and source hosts");
    expect(s).toContain("and `pkgs.example.com` (never `gitlab.com`)");
    expect(s).toContain("`pip install` and `npm install` work but other sites do not");
  });

  it("says installs work with the whole internet, except the denied hosts", () => {
    expect(describeNetwork(info("all", [], ["evil.example", "*.bad.example"]))).toBe(
      "The sandbox has internet access (never `evil.example` and `*.bad.example`), so `pip install`, `npm install` and downloads work.",
    );
  });

  it("names only the allowed hosts when the rest is closed, counting a long list", () => {
    const s = describeNetwork(info("none", ["a.example", "b.example", "c.example", "d.example", "e.example", "f.example"]));
    expect(s).toBe(
      "The sandbox can reach only `a.example`, `b.example`, `c.example`, `d.example` and 2 more, so `pip install` and `npm install` fail unless their registry is among them.",
    );
  });

  it("is one line, whatever the lists hold", () => {
    for (const n of ["none", "registries", "all"] as const) expect(describeNetwork(info(n, ["x.example"], ["y.example"]))).not.toContain("\n");
  });
});
