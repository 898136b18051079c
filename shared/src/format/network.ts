import type { InfoResponse } from "../wire/schemas.ts";

/** Hosts named in a sentence before the rest are counted ("and 3 more"): a help text stays one line. */
const HOSTS_SHOWN = 4;

function hostList(hosts: string[]): string {
  const shown = hosts.slice(0, HOSTS_SHOWN).map((h) => `\`${h}\``);
  const more = hosts.length - shown.length;
  if (more > 0) return `${shown.join(", ")} and ${more} more`;
  if (shown.length <= 1) return shown.join("");
  return `${shown.slice(0, -1).join(", ")} and ${shown[shown.length - 1]}`;
}

/**
 * One sentence for `/duet help` saying where the room's sandbox may connect, so
 * people know before asking whether `pip install` or `npm install` will work.
 */
export function describeNetwork(info: InfoResponse): string {
  const { network, allowedHosts, deniedHosts } = info.sandbox;
  const except = deniedHosts.length > 0 ? ` (never ${hostList(deniedHosts)})` : "";
  const plus = allowedHosts.length > 0 ? ` and ${hostList(allowedHosts)}` : "";
  switch (network) {
    case "all":
      return `The sandbox has internet access${except}, so \`pip install\`, \`npm install\` and downloads work.`;
    case "registries":
      return `The sandbox can reach package registries and source hosts (npm, PyPI, crates.io, Go, RubyGems, Maven, apt, GitHub, GitLab)${plus}${except}, so \`pip install\` and \`npm install\` work but other sites do not.`;
    case "none":
      if (allowedHosts.length > 0) {
        return `The sandbox can reach only ${hostList(allowedHosts)}${except}, so \`pip install\` and \`npm install\` fail unless their registry is among them.`;
      }
      return "The sandbox has no network access: `pip install`, `npm install` and downloads fail.";
  }
}
