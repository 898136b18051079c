import { describe, expect, it } from "vitest";
import { containerNetwork } from "./container-network.ts";
import { REGISTRY_HOST_LIST } from "./registry-hosts.ts";

const policy = (network: "none" | "registries" | "all", allowedHosts: string[] = [], deniedHosts: string[] = []) => ({ network, allowedHosts, deniedHosts });

describe("containerNetwork", () => {
  it("none: no internet, no proxy", () => {
    expect(containerNetwork(policy("none", [], ["x.example"]))).toEqual({ enableInternet: false, interceptHttps: false });
  });

  it("none with allowed hosts: those hosts only, HTTPS through the proxy", () => {
    expect(containerNetwork(policy("none", ["pkgs.example.com"]))).toEqual({ enableInternet: false, allowedHosts: ["pkgs.example.com"], interceptHttps: true });
  });

  it("registries: the registry hosts plus the allowed ones, minus the denied", () => {
    const n = containerNetwork(policy("registries", ["pkgs.example.com", "pypi.org"], ["gitlab.com"]));
    expect(n).toMatchObject({ enableInternet: false, deniedHosts: ["gitlab.com"], interceptHttps: true });
    expect(n.allowedHosts).toEqual([...REGISTRY_HOST_LIST, "pkgs.example.com"]);
    expect(n.allowedHosts).toContain("files.pythonhosted.org");
  });

  it("all: the internet, no allow-list; denied hosts through the proxy", () => {
    expect(containerNetwork(policy("all", ["only.example"]))).toEqual({ enableInternet: true, interceptHttps: false });
    expect(containerNetwork(policy("all", [], ["blocked.example"]))).toEqual({ enableInternet: true, deniedHosts: ["blocked.example"], interceptHttps: true });
  });
});
