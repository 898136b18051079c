import { generateKeyPairSync, randomBytes } from "node:crypto";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from "vitest";
import { loadConfig } from "../sandbox/src/config.ts";
import { Executor } from "../sandbox/src/executor.ts";
import { checkoutRepo, cloneKib, type MeasureClone } from "../sandbox/src/git/checkout.ts";
import { startTestExecutor, type TestExecutor } from "../sandbox/src/test-support.ts";
import { InstallationTokens } from "../worker/src/github/installation-tokens.ts";
import { startFakeGithub, type FakeGithub } from "./fakes/github.ts";
import { BareRepos } from "./helpers/git-repos.ts";

/**
 * `POST /api/git/checkout` on the real bubblewrap executor, against the fake
 * git host: hostile and malformed requests, and a workspace whose `repo/`
 * a model's commands prepared to catch the token.
 */

const { privateKey, publicKey } = generateKeyPairSync("rsa", { modulusLength: 2048 });
let github: FakeGithub;
let repos: BareRepos;
let ex: TestExecutor;
let token: string;
let otherToken: string;
let url: string;
let app: InstallationTokens;

beforeAll(async () => {
  repos = new BareRepos();
  await repos.create("acme/tools", [{ "README.md": "tools\n" }]);
  await repos.create("acme/other", [{ "other.txt": "other\n" }]);
  github = await startFakeGithub({ appId: "5", publicKey, gitRoot: repos.root });
  github.addRepo({ fullName: "acme/tools", installationId: 3 });
  github.addRepo({ fullName: "acme/other", installationId: 3 });
  app = new InstallationTokens({ appId: "5", privateKey: privateKey.export({ type: "pkcs8", format: "pem" }).toString(), apiUrl: github.url });
  token = (await app.token(3, "tools", { contents: "read" })).token;
  otherToken = (await app.token(3, "other", { contents: "read" })).token;
  url = `${github.url}/acme/tools.git`;
  ex = await startTestExecutor();
});
afterAll(async () => {
  await ex?.stop();
  await github?.close();
  repos?.remove();
});

const checkout = (body: unknown) => ex.request("POST", "/api/git/checkout", { body: typeof body === "string" ? body : JSON.stringify(body) });
const good = (sessionId: string) => ({ sessionId, url, token, repo: "acme/tools" });

describe("POST /api/git/checkout refuses what it must not run", () => {
  it.each([
    ["an empty body", "", "request body must be JSON"],
    ["an array", "[]", "body must be a JSON object {sessionId, url, branch?, token, repo}"],
    ["a URL with credentials", { url: "https://x-access-token:abc@github.com/acme/tools.git" }, "url must hold no credentials, query or fragment"],
    ["a file URL", { url: "file:///etc" }, "url must be an http(s) URL"],
    ["git's ext:: transport", { url: "ext::sh -c touch% /tmp/pwned" }, "url must be an http(s) URL"],
    ["a branch that is an option", { branch: "--upload-pack=touch /tmp/pwned" }, "Branch cannot hold spaces, control or invisible characters, or any of ~ ^ : ? * [ \\"],
    ["a branch starting with a dash", { branch: "-f" }, 'Branch cannot start with "-"'],
    ["a token that would add a header", { token: "abc\r\nX-Evil: 1" }, "token must be 1-512 characters of A-Z a-z 0-9 _ . -"],
    ["a session id that climbs out", { sessionId: "../etc" }, "sessionId must be 1-220 characters of A-Z a-z 0-9 . _ - and not only dots (e.g. sandbox-<roomId>)"],
    ["a malformed repository name", { repo: "acme" }, 'Repository must be owner/name (one "/")'],
  ])("%s → 400 with the rule", async (_what, change, error) => {
    const body = typeof change === "string" ? change : { ...good("sandbox-hostile"), ...change };
    const r = await checkout(body);
    expect(r.status).toBe(400);
    expect(r.body.error).toBe(error);
    expect(existsSync("/tmp/pwned")).toBe(false);
  });

  it("an oversized body → 413; no bearer → 401; GET → 405", async () => {
    expect((await checkout({ ...good("sandbox-big"), pad: "x".repeat(20_000) })).status).toBe(413);
    expect((await ex.request("POST", "/api/git/checkout", { body: JSON.stringify(good("sandbox-a")), token: null })).status).toBe(401);
    expect((await ex.request("GET", "/api/git/checkout")).status).toBe(405);
  });

  it("a repository the git host lacks → 404 naming it, whatever digits its name or the host's port hold", async () => {
    // The port or the name holding "403" once read as a refusal, since git's message quotes the URL.
    github.addRepo({ fullName: "acme/errors-403", installationId: 3 });
    const lacking = (await app.token(3, "errors-403", { contents: "read" })).token;
    const r = await checkout({ sessionId: "sandbox-lacking", url: `${github.url}/acme/errors-403.git`, token: lacking, repo: "acme/errors-403" });
    expect(r).toMatchObject({ status: 404, body: { error: "acme/errors-403 was not found on the git host", code: "no_repo" } });
    expect((await ex.exec("sandbox-lacking", "ls -A")).stdout).toBe("");
  });

  it("a push with a token that may only read → 502: the host refused it, in one line", async () => {
    const room = "sandbox-push-refused";
    const done = await checkout(good(room));
    expect(done.status).toBe(200);
    expect((await ex.exec(room, "echo change > repo/new.txt")).exitCode).toBe(0);
    const push = {
      ...good(room),
      branch: "duet/change-403",
      baseSha: done.body.sha,
      parent: done.body.sha,
      message: "A change",
      author: { name: "Duet", email: "duet@example.com" },
      date: 1_700_000_000,
    };
    const r = await ex.request("POST", "/api/git/push", { body: JSON.stringify(push) });
    expect(r).toMatchObject({ status: 502, body: { error: "the git host refused Duet's push to acme/tools", code: "refused" } });
  });

  it("a token the git host refuses → 502 with one line, and nothing in the workspace", async () => {
    const r = await checkout({ ...good("sandbox-refused"), token: "ghs_notminted" });
    expect(r).toMatchObject({ status: 502, body: { error: "the git host refused Duet's token for acme/tools", code: "refused" } });
    expect((await ex.exec("sandbox-refused", "ls -A")).stdout).toBe("");
  });
});

describe("a workspace prepared by the model", () => {
  it("a file at repo/ → 409 naming it, and the file is kept", async () => {
    await ex.exec("sandbox-file", "echo mine > repo");
    const r = await checkout(good("sandbox-file"));
    expect(r).toMatchObject({ status: 409, body: { error: "the checkout of acme/tools could not be made in repo/: repo/ is there and is not a git checkout: move it away, then sync again" } });
    expect((await ex.exec("sandbox-file", "cat repo")).stdout).toBe("mine\n");
  });

  it("a repo/ that holds another repository (a new link) → 409 naming it, and that checkout is kept as it was", async () => {
    const room = "sandbox-relinked";
    expect((await checkout(good(room))).status).toBe(200);
    const r = await checkout({ sessionId: room, url: `${github.url}/acme/other.git`, token: otherToken, repo: "acme/other" });
    expect(r).toMatchObject({ status: 409, body: { error: `the checkout of acme/other could not be made in repo/: repo/ holds another repository (its origin is not ${github.url}/acme/other.git): move it away, then sync again` } });
    expect((await ex.exec(room, "ls /workspace/repo")).stdout).toBe("README.md\n");
  });

  it("hooks and fsmonitor planted in repo/.git run inside the sandbox only, as its user, with no token to read", async () => {
    const room = "sandbox-planted";
    expect((await checkout(good(room))).status).toBe(200);
    // A model's command makes git run its programs on the next sync: an fsmonitor and a hook dumping what they can see.
    const plant = [
      "cd /workspace/repo",
      "git config core.fsmonitor 'sh -c \"(id; env; cat /proc/[0-9]*/environ | tr \\\\\\\\0 \\\\\\\\n) >> /workspace/caught\"; false #'",
      "printf '#!/bin/sh\\n(id; env) >> /workspace/caught\\n' > .git/hooks/reference-transaction && chmod +x .git/hooks/reference-transaction",
      "echo planted",
    ].join(" && ");
    expect((await ex.exec(room, plant)).stdout).toBe("planted\n");
    await repos.commit("acme/tools", [{ "more.txt": "more\n" }]);
    const r = await checkout(good(room));
    expect(r.status).toBe(200);
    const caught = (await ex.exec(room, "cat /workspace/caught")).stdout;
    // They ran: inside the sandbox, as its user.
    expect(caught).toContain("uid=1000(sandbox)");
    expect(caught).not.toContain(token);
    expect(caught).not.toContain(Buffer.from(`x-access-token:${token}`).toString("base64"));
    // The mirror on the host is not the workspace's: nothing planted there.
    expect(existsSync(join(ex.root, "mirrors", `${room}.git`, "hooks", "reference-transaction"))).toBe(false);
  });
});

describe("a repository too large for the room's workspace quota", () => {
  it("→ 413 with one line naming the quota, nothing of it kept in the workspace, and a repository that fits checks out in that room after", async () => {
    // About 16 MB of text that does not compress, against a 16 MiB workspace: the clone fills it part way.
    const files: Record<string, string> = {};
    for (let i = 0; i < 12; i++) files[`blob${i}.txt`] = randomBytes(1024 * 1024).toString("base64");
    await repos.create("acme/huge", [files]);
    github.addRepo({ fullName: "acme/huge", installationId: 3 });
    const hugeToken = (await app.token(3, "huge", { contents: "read" })).token;
    const small = await startTestExecutor({ workspaceMaxBytes: 16 * 1024 * 1024 });
    try {
      const room = "sandbox-huge";
      const r = await small.request("POST", "/api/git/checkout", { body: JSON.stringify({ sessionId: room, url: `${github.url}/acme/huge.git`, token: hugeToken, repo: "acme/huge" }) });
      expect(r).toEqual({ status: 413, body: { error: "acme/huge is too large for this room's workspace (16 MiB, SANDBOX_WORKSPACE_MAX_BYTES): its checkout did not fit, and nothing of it was kept", code: "too_large" } });
      expect((await small.exec(room, "ls -A")).stdout).toBe("");
      const fits = await small.request("POST", "/api/git/checkout", { body: JSON.stringify(good(room)) });
      expect(fits.status).toBe(200);
      expect((await small.exec(room, "ls -A repo")).stdout).toContain("README.md");
    } finally {
      await small.stop();
    }
  }, 120_000);
});

describe("measuring a clone before it is made", () => {
  it("a sync into an existing repo/ measures nothing; a clone, the first or after repo/ was removed, measures once", async () => {
    const root = mkdtempSync(join(tmpdir(), "duet-sandbox-test-"));
    const executor = new Executor({ ...loadConfig(process.env), root, token: "measure-test", isolation: "bwrap" });
    await executor.start();
    onTestFinished(async () => (await executor.stopAll(), rmSync(root, { recursive: true, force: true })));
    // The real measure, with each call counted.
    const measured: string[] = [];
    const measure: MeasureClone = (mirror, branch) => (measured.push(branch), cloneKib(mirror, branch));
    const room = "sandbox-measured";
    const sync = () => checkoutRepo(executor, executor.fileOwner, { sessionId: room, url, branch: null, token, name: "acme/tools" }, undefined, measure);

    expect(await sync()).toMatchObject({ branch: "main", cloned: true });
    expect(measured).toEqual(["main"]);

    const next = await repos.commit("acme/tools", [{ "measured.txt": "next\n" }]);
    expect(await sync()).toEqual({ sha: next, branch: "main", cloned: false });
    expect(measured).toEqual(["main"]);

    expect((await executor.exec(room, "rm -rf repo && echo gone", 10_000)).stdout).toBe("gone\n");
    expect(await sync()).toEqual({ sha: next, branch: "main", cloned: true });
    expect(measured).toEqual(["main", "main"]);
  }, 60_000);
});
