/** The GitHub App rooms' repositories go through, as configured (GITHUB_APP_*, GITHUB_API_URL; read in config.ts). */
export interface GithubAppConfig {
  appId: string;
  privateKey: string;
  slug?: string;
  webhookSecret?: string;
  /** Without a trailing slash. */
  apiUrl: string;
}
