/**
 * What SANDBOX_NETWORK=registries lets a production sandbox reach: the hosts that
 * package managers and source fetches talk to, and nothing else. Each entry names
 * the tool it serves; the "Sandbox network" section of docs/configuration.md lists the same hosts.
 * `*` matches any run of characters, as @cloudflare/containers matches hosts.
 */
export const REGISTRY_HOSTS: ReadonlyArray<{ what: string; hosts: readonly string[] }> = [
  { what: "npm, pnpm, Yarn, Bun", hosts: ["registry.npmjs.org", "registry.yarnpkg.com", "repo.yarnpkg.com"] },
  { what: "JSR (Deno)", hosts: ["jsr.io", "npm.jsr.io"] },
  // pip asks pypi.org for the index and downloads the files from files.pythonhosted.org.
  { what: "PyPI (pip, uv, Poetry)", hosts: ["pypi.org", "files.pythonhosted.org"] },
  // Cargo's sparse index and its crate downloads live on separate hosts.
  { what: "crates.io (Cargo)", hosts: ["crates.io", "index.crates.io", "static.crates.io"] },
  { what: "Go modules", hosts: ["proxy.golang.org", "sum.golang.org"] },
  { what: "RubyGems (gem, Bundler)", hosts: ["rubygems.org", "index.rubygems.org"] },
  { what: "Maven Central (Maven, Gradle)", hosts: ["repo.maven.apache.org", "repo1.maven.org", "plugins.gradle.org"] },
  { what: "Packagist (Composer)", hosts: ["repo.packagist.org", "packagist.org"] },
  // The production image is Ubuntu; regional mirrors are <cc>.archive.ubuntu.com.
  { what: "apt (Ubuntu, Debian)", hosts: ["archive.ubuntu.com", "*.archive.ubuntu.com", "security.ubuntu.com", "ports.ubuntu.com", "deb.debian.org", "security.debian.org"] },
  // git clone over HTTPS, tarballs (codeload), raw files and release downloads.
  {
    what: "GitHub",
    hosts: ["github.com", "api.github.com", "codeload.github.com", "raw.githubusercontent.com", "objects.githubusercontent.com", "release-assets.githubusercontent.com"],
  },
  { what: "GitLab", hosts: ["gitlab.com"] },
];

export const REGISTRY_HOST_LIST: readonly string[] = REGISTRY_HOSTS.flatMap((r) => r.hosts);
