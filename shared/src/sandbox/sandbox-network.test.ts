import { z } from "zod";
import { describe, expect, it } from "vitest";
import { parseEnv } from "../config/env-config.ts";
import { networkPolicyOf, sandboxNetworkFields } from "./sandbox-network.ts";

const schema = z.object(sandboxNetworkFields);
const parse = (env: Record<string, string>) => networkPolicyOf(parseEnv(schema, env, "test"));

describe("the sandbox network variables", () => {
  it("default to no network and no host adjustments", () => {
    expect(parse({})).toEqual({ network: "none", allowedHosts: [], deniedHosts: [] });
  });

  it("read the mode case-insensitively and the host lists trimmed, lower-cased and deduplicated", () => {
    expect(parse({ SANDBOX_NETWORK: " Registries ", SANDBOX_ALLOWED_HOSTS: "Pkgs.Example.com, *.corp.example,pkgs.example.com.", SANDBOX_DENIED_HOSTS: "gitlab.com" })).toEqual({
      network: "registries",
      allowedHosts: ["pkgs.example.com", "*.corp.example"],
      deniedHosts: ["gitlab.com"],
    });
  });

  it("stop with one line naming the variable for an unknown mode", () => {
    expect(() => parse({ SANDBOX_NETWORK: "some" })).toThrow(/^test: SANDBOX_NETWORK must be none, registries, all or unset \(none\), not "some"$/);
  });

  it("stop with one line naming the variable and the entry for a URL where a host belongs", () => {
    expect(() => parse({ SANDBOX_DENIED_HOSTS: "ok.example, https://pypi.org/simple" })).toThrow(
      /^test: SANDBOX_DENIED_HOSTS must be comma-separated host names .*"https:\/\/pypi.org\/simple" is not one$/,
    );
  });
});
