import { execFileSync } from "node:child_process";
import { generateKeyPairSync, randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startExecutor, type ExecutorConfig, type RunningExecutor } from "@duet/sandbox";
import { startFakeGitRemote, type FakeGitRemote } from "../fakes/git-remote.ts";
import { startFakeGithub, type FakeGithub } from "../fakes/github.ts";
import { BareRepos } from "./git-repos.ts";

/**
 * What a chat test of pull requests runs against besides its platform: the
 * fake GitHub (its App installed on acme/widgets) serving a real bare
 * repository over `git http-backend`, and the real bubblewrap executor; `vars`
 * point a Worker (started with `executor: "real"`) at both. With `gitRemote`,
 * the Worker is pointed at a plain git remote with a token serving the same
 * repository instead (no App: a branch is pushed, no pull request opened).
 */
export interface PrHost {
  github: FakeGithub;
  /** The plain git remote, when the host was started with `gitRemote`. */
  remote?: FakeGitRemote;
  repos: BareRepos;
  executor: RunningExecutor;
  /** main's tip when the host started. */
  mainTip: string;
  vars: Record<string, string>;
  /** git on the host's bare acme/widgets. */
  hostGit(...args: string[]): string;
  stop(): Promise<void>;
}

export const PR_APP_ID = "31339";

/** The plain git remote's token, as DUET_GIT_REMOTE_TOKEN. */
export const REMOTE_TOKEN = "glpat-prhost-0123456789abcdef";

/** `gitRemote`: a plain git remote instead of the App; `executor`: executor settings besides port, root and token (e.g. a small workspaceMaxBytes). */
export interface PrHostOptions {
  gitRemote?: boolean;
  executor?: Partial<ExecutorConfig>;
}

export async function startPrHost(opts: PrHostOptions = {}): Promise<PrHost> {
  const { privateKey, publicKey } = generateKeyPairSync("rsa", { modulusLength: 2048 });
  const repos = new BareRepos();
  const mainTip = await repos.create("acme/widgets", [{ "README.md": "# Widgets\n" }, { "src/a.txt": "alpha\n" }]);
  const github = await startFakeGithub({ appId: PR_APP_ID, publicKey, gitRoot: repos.root });
  github.addRepo({ fullName: "acme/widgets", installationId: 9 });
  const remote = opts.gitRemote ? await startFakeGitRemote(repos.root, REMOTE_TOKEN) : undefined;
  const root = mkdtempSync(join(tmpdir(), "duet-pr-host-"));
  const token = randomBytes(16).toString("hex");
  const executor = await startExecutor({ ...opts.executor, port: 0, root, token }, () => {}).catch(async (err) => {
    await github.close();
    await remote?.close();
    throw err;
  });
  const hosting: Record<string, string> = remote
    ? { DUET_GIT_REMOTE_URL: remote.template, DUET_GIT_REMOTE_TOKEN: REMOTE_TOKEN }
    : {
        GITHUB_APP_ID: PR_APP_ID,
        GITHUB_APP_PRIVATE_KEY: privateKey.export({ type: "pkcs1", format: "pem" }).toString(),
        GITHUB_APP_SLUG: "duet-test",
        GITHUB_API_URL: github.url,
      };
  return {
    github,
    ...(remote ? { remote } : {}),
    repos,
    executor,
    mainTip,
    vars: {
      SANDBOX_URL: executor.url,
      SANDBOX_TOKEN: token,
      ...hosting,
    },
    hostGit: (...args) => execFileSync("git", ["-C", `${repos.root}/acme/widgets.git`, ...args]).toString().trim(),
    async stop() {
      await executor.close();
      await github.close();
      await remote?.close();
      repos.remove();
      rmSync(root, { recursive: true, force: true });
    },
  };
}
