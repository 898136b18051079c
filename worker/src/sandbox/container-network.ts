import type { NetworkPolicy } from "@duet/shared";
import { REGISTRY_HOST_LIST } from "./registry-hosts.ts";

/** The @cloudflare/containers settings a production sandbox starts with. */
export interface ContainerNetwork {
  /** The container's own route to the internet (the SDK's default is on). */
  enableInternet: boolean;
  /** Only these hosts are reachable (through the Worker's outbound proxy); unset: no allow-list. */
  allowedHosts?: string[];
  /** Never reachable; unset: none. */
  deniedHosts?: string[];
  /**
   * Host rules need HTTPS traffic to pass through the outbound proxy too, or a
   * host list would only cover plain HTTP. The sandbox image then trusts the
   * proxy's certificate (the SDK sets SANDBOX_INTERCEPT_HTTPS for it).
   */
  interceptHttps: boolean;
}

/**
 * SANDBOX_NETWORK and its host lists, as container settings:
 * - `none`: no internet; SANDBOX_ALLOWED_HOSTS, when set, are the only way out.
 * - `registries`: no direct internet; the registry hosts plus SANDBOX_ALLOWED_HOSTS.
 * - `all`: the internet. An allow-list here would close everything else, so
 *   SANDBOX_ALLOWED_HOSTS adds nothing.
 * SANDBOX_DENIED_HOSTS are blocked in every mode.
 */
export function containerNetwork(policy: NetworkPolicy): ContainerNetwork {
  const denied = policy.deniedHosts.length > 0 ? [...policy.deniedHosts] : undefined;
  const allowed =
    policy.network === "registries" ? [...new Set([...REGISTRY_HOST_LIST, ...policy.allowedHosts])] : policy.network === "none" && policy.allowedHosts.length > 0 ? [...policy.allowedHosts] : undefined;
  const enableInternet = policy.network === "all";
  // With the internet closed and no host to let through, nothing needs the proxy.
  if (!enableInternet && !allowed) return { enableInternet, interceptHttps: false };
  return { enableInternet, allowedHosts: allowed, deniedHosts: denied, interceptHttps: Boolean(allowed || denied) };
}
