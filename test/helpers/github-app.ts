import { generateKeyPairSync } from "node:crypto";
import { startFakeGithub, type FakeGithub } from "../fakes/github.ts";
import { BareRepos } from "./git-repos.ts";

/** A GitHub App's id and slug as the tests configure it. */
export const TEST_APP_ID = "4242";
export const TEST_APP_SLUG = "duet-test";

/**
 * The fake GitHub with an App whose key is made here, installed on `repos`,
 * and the Worker variables that point a Worker at it.
 */
export async function startGithubApp(repos: readonly string[]): Promise<{ github: FakeGithub; vars: Record<string, string> }> {
  const { privateKey, publicKey } = generateKeyPairSync("rsa", { modulusLength: 2048 });
  const github = await startFakeGithub({ appId: TEST_APP_ID, publicKey });
  for (const fullName of repos) github.addRepo({ fullName, installationId: 7 });
  const vars = {
    GITHUB_APP_ID: TEST_APP_ID,
    GITHUB_APP_PRIVATE_KEY: privateKey.export({ type: "pkcs1", format: "pem" }).toString(),
    GITHUB_APP_SLUG: TEST_APP_SLUG,
    GITHUB_API_URL: github.url,
  };
  return { github, vars };
}

/** A fake GitHub that is also the git host of one repository, and the Worker variables of an App (with its webhook) pointed at it. */
export interface GithubHost {
  github: FakeGithub;
  repos: BareRepos;
  vars: Record<string, string>;
  stop(): Promise<void>;
}

/**
 * `repo` as a bare repository of `commits` served by the fake GitHub
 * (installation 9), and GITHUB_* for a Worker: the App's id, a key made
 * here, its slug and webhook secret, the fake's URL.
 */
export async function startGithubHost(opts: { appId: string; slug: string; webhookSecret: string; repo: string; commits: Record<string, string>[] }): Promise<GithubHost> {
  const { privateKey, publicKey } = generateKeyPairSync("rsa", { modulusLength: 2048 });
  const repos = new BareRepos();
  await repos.create(opts.repo, opts.commits);
  const github = await startFakeGithub({ appId: opts.appId, publicKey, gitRoot: repos.root });
  github.addRepo({ fullName: opts.repo, installationId: 9 });
  const vars = {
    GITHUB_APP_ID: opts.appId,
    GITHUB_APP_PRIVATE_KEY: privateKey.export({ type: "pkcs1", format: "pem" }).toString(),
    GITHUB_APP_SLUG: opts.slug,
    GITHUB_WEBHOOK_SECRET: opts.webhookSecret,
    GITHUB_API_URL: github.url,
  };
  return {
    github,
    repos,
    vars,
    async stop() {
      await github.close();
      repos.remove();
    },
  };
}
