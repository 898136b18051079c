import { z } from "zod";

/**
 * Where a room's sandbox may connect, as SANDBOX_NETWORK, SANDBOX_ALLOWED_HOSTS and
 * SANDBOX_DENIED_HOSTS say. Parsed here once for the Worker and the local executor,
 * so both read the same three variables the same way.
 */

/** `none`: no network; `registries`: package registries and source hosts only; `all`: the whole internet. */
export const SANDBOX_NETWORKS = ["none", "registries", "all"] as const;
export type SandboxNetwork = (typeof SANDBOX_NETWORKS)[number];

/** No network unless the operator opts in: a model-written command should not reach the internet by default. */
export const DEFAULT_SANDBOX_NETWORK: SandboxNetwork = "none";

/**
 * A host name, optionally with `*` standing for any run of characters (`*.example.com`),
 * as @cloudflare/containers matches them. No scheme, path or port.
 */
const HOST_PATTERN = /^(?=.{1,253}$)[a-z0-9*](?:[a-z0-9*-]*[a-z0-9*])?(?:\.[a-z0-9*](?:[a-z0-9*-]*[a-z0-9*])?)*$/;

export const networkVar = z
  .string()
  .optional()
  .transform((v, ctx) => {
    const value = v?.trim().toLowerCase();
    if (!value) return DEFAULT_SANDBOX_NETWORK;
    if (!(SANDBOX_NETWORKS as readonly string[]).includes(value)) {
      ctx.addIssue({ code: "custom", message: `SANDBOX_NETWORK must be ${SANDBOX_NETWORKS.join(", ")} or unset (none), not "${v}"` });
      return z.NEVER;
    }
    return value as SandboxNetwork;
  });

/** A comma-separated host list (`a.example.com, *.b.example.org`); the error names the variable and the bad entry. */
export const hostListVar = (name: string) =>
  z
    .string()
    .optional()
    .transform((v, ctx) => {
      const hosts = (v ?? "")
        .split(",")
        .map((h) => h.trim().toLowerCase().replace(/\.$/, ""))
        .filter(Boolean);
      const bad = hosts.find((h) => !HOST_PATTERN.test(h));
      if (bad !== undefined) {
        ctx.addIssue({ code: "custom", message: `${name} must be comma-separated host names (e.g. pypi.org, *.example.com); "${bad}" is not one` });
        return z.NEVER;
      }
      return [...new Set(hosts)];
    });

/** The three variables' fields, for a package's config schema. */
export const sandboxNetworkFields = {
  SANDBOX_NETWORK: networkVar,
  SANDBOX_ALLOWED_HOSTS: hostListVar("SANDBOX_ALLOWED_HOSTS"),
  SANDBOX_DENIED_HOSTS: hostListVar("SANDBOX_DENIED_HOSTS"),
};

export interface NetworkPolicy {
  network: SandboxNetwork;
  /** Reachable on top of what `network` allows. */
  allowedHosts: string[];
  /** Never reachable, whatever `network` and `allowedHosts` say. */
  deniedHosts: string[];
}

export function networkPolicyOf(c: { SANDBOX_NETWORK: SandboxNetwork; SANDBOX_ALLOWED_HOSTS: string[]; SANDBOX_DENIED_HOSTS: string[] }): NetworkPolicy {
  return { network: c.SANDBOX_NETWORK, allowedHosts: c.SANDBOX_ALLOWED_HOSTS, deniedHosts: c.SANDBOX_DENIED_HOSTS };
}
