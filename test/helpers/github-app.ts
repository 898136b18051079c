import { generateKeyPairSync } from "node:crypto";
import { startFakeGithub, type FakeGithub } from "../fakes/github.ts";

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
