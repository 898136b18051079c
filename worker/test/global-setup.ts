import { generateKeyPairSync } from "node:crypto";
import type { TestProject } from "vitest/node";
import { startFakeExecutor } from "../../test/fakes/executor.ts";
import { startFakeGithub } from "../../test/fakes/github.ts";
import { startFakeMcp } from "../../test/fakes/mcp.ts";
import { startFakeMcpOAuth } from "../../test/fakes/mcp-oauth.ts";
import { startFakeModel } from "../../test/fakes/model.ts";

declare module "vitest" {
  export interface ProvidedContext {
    fakeModelUrl: string;
    fakeExecutorUrl: string;
    fakeGithubUrl: string;
    githubAppKey: string;
    fakeMcpUrl: string;
    fakeMcpOAuthUrl: string;
  }
}

export default async function setup(project: TestProject) {
  const model = await startFakeModel();
  const executor = await startFakeExecutor();
  const mcp = await startFakeMcp();
  project.provide("fakeMcpUrl", mcp.url);
  const mcpOAuth = await startFakeMcpOAuth();
  project.provide("fakeMcpOAuthUrl", mcpOAuth.url);
  // A GitHub App whose key is made here (in GitHub's PKCS#1 form), installed on the repositories the tests link.
  const { privateKey, publicKey } = generateKeyPairSync("rsa", { modulusLength: 2048 });
  const github = await startFakeGithub({ appId: "4242", publicKey });
  for (const fullName of ["acme/widgets", "acme/gadgets.js", "acme/fork", "acme/kept", "my-org/my.repo_name"]) github.addRepo({ fullName, installationId: 7 });
  github.addRepo({ fullName: "acme/attic", installationId: 7, archived: true });
  project.provide("fakeGithubUrl", github.url);
  project.provide("githubAppKey", privateKey.export({ type: "pkcs1", format: "pem" }).toString());
  project.provide("fakeModelUrl", model.url);
  project.provide("fakeExecutorUrl", executor.url);
  return async () => {
    await model.close();
    await executor.close();
    await github.close();
    await mcp.close();
    await mcpOAuth.close();
  };
}
