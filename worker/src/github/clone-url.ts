/**
 * The https URL git clones `repo` (`owner/name`) from, without credentials:
 * github.com's for api.github.com, else the API's own host (a GitHub
 * Enterprise Server serves git at `https://HOST/owner/name.git` beside its
 * `/api/v3`; the test fakes serve both on one port).
 */
export function cloneUrl(apiUrl: string, repo: string): string {
  const api = new URL(apiUrl);
  if (api.hostname === "api.github.com") return `https://github.com/${repo}.git`;
  return `${api.origin}/${repo}.git`;
}
