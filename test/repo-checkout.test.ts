import { generateKeyPairSync } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startFakeGithub, type FakeGithub } from "./fakes/github.ts";
import { BareRepos } from "./helpers/git-repos.ts";
import { PROBE, probeBesideHolders, WATCHER } from "./helpers/host-proc.ts";
import { startSandboxStack, type SandboxStack } from "./helpers/sandbox-stack.ts";
import { workerApi } from "./helpers/worker-api.ts";

/**
 * A room's checkout, through the real Worker (workerd), the real bubblewrap
 * executor and a fake GitHub whose git host is `git http-backend` on bare
 * repositories: linking, the first turn's clone at `repo/`, sync, and the
 * token kept out of every sandboxed command.
 */

const APP_ID = "31337";
const { privateKey, publicKey } = generateKeyPairSync("rsa", { modulusLength: 2048 });

let github: FakeGithub;
let repos: BareRepos;
let sandbox: SandboxStack;
let mainTip: string;

beforeAll(async () => {
  repos = new BareRepos();
  mainTip = await repos.create("acme/widgets", [{ "README.md": "# Widgets\n" }, { "src/a.txt": "alpha\n" }, { "src/b.txt": "beta\n" }]);
  await repos.commit("acme/widgets", [{ "feature.txt": "on a branch\n" }], "feature", "main");
  await repos.create("acme/secrets", [{ "notes.md": "private\n" }]);
  await repos.create("acme/setup", [{ ".duet/setup.sh": 'echo "setting up in $(pwd)"\n', "app.txt": "v1\n" }]);
  github = await startFakeGithub({ appId: APP_ID, publicKey, gitRoot: repos.root });
  for (const fullName of ["acme/widgets", "acme/secrets", "acme/ghost", "acme/setup"]) github.addRepo({ fullName, installationId: 9 });
  sandbox = await startSandboxStack({
    wire: ({ url, token }) => ({
      SANDBOX_URL: url,
      SANDBOX_TOKEN: token,
      GITHUB_APP_ID: APP_ID,
      GITHUB_APP_PRIVATE_KEY: privateKey.export({ type: "pkcs1", format: "pem" }).toString(),
      GITHUB_API_URL: github.url,
    }),
  });
});
afterAll(async () => {
  await sandbox?.stop();
  await github?.close();
  repos?.remove();
});

const api = workerApi(() => sandbox.stack);

const link = (roomId: string, repo: string, branch?: string) => api("PUT", `/api/rooms/${roomId}/repo`, { repo, ...(branch ? { branch } : {}), userId: "U1" });
const exec = async (roomId: string, cmd: string) => (await sandbox.stack.client.exec(roomId, { cmd })).result;

/** Every form a minted token could be read in: itself, and the Basic header git sends (base64 of `x-access-token:TOKEN`). */
function tokenForms(): string[] {
  return github.minted.flatMap((token) => [token, Buffer.from(`x-access-token:${token}`).toString("base64")]);
}
const leaks = (text: string) => tokenForms().filter((form) => text.includes(form));

describe("the first turn after linking", () => {
  it("clones the branch with its history at repo/, tells the model, says so in the thread, and GET repo shows the checkout", async () => {
    const room = "cli-checkout-first";
    expect((await link(room, "acme/widgets")).status).toBe(200);
    const before = await api("GET", `/api/rooms/${room}/repo`);
    expect(before.body).toMatchObject({ repo: "acme/widgets", checkout: null });

    const answer = await sandbox.stack.client.message(room, {
      text: "SAY: Looking. <run>git -C repo log --format=%s | wc -l; git -C repo branch --show-current; cat repo/README.md; git -C repo remote get-url origin</run>",
      userId: "U1",
    });
    expect(answer.runs[0].exitCode).toBe(0);
    expect(answer.runs[0].stdout).toBe(`3\nmain\n# Widgets\n${github.url}/acme/widgets.git\n`);
    expect(answer.reply).toContain(`Checked out acme/widgets (branch main, ${mainTip.slice(0, 7)}) in repo/.`);
    const system = github && sandbox.stack.model.calls.at(-1)!.messages[0].content;
    expect(system).toContain("This room works on the repository acme/widgets, branch main: a clone of it with its history is in repo/");

    const view = await api("GET", `/api/rooms/${room}/repo`);
    expect(view.body.checkout).toEqual({ sha: mainTip, at: expect.any(Number) });

    // The next turn finds it made: no checkout line, no fetch.
    const fetches = github.gitRequests.length;
    const next = await sandbox.stack.client.message(room, { text: "SAY: Again. <run>git -C repo rev-parse HEAD</run>", userId: "U1" });
    expect(next.runs[0].stdout.trim()).toBe(mainTip);
    expect(next.reply).not.toContain("Checked out");
    expect(github.gitRequests.length).toBe(fetches);
    expect(sandbox.stack.model.calls.at(-1)!.messages[0].content).toContain("acme/widgets, branch main");
  });

  it("a named branch is checked out; sync fast-forwards it to a new commit, and the checkout outlives a Worker restart", async () => {
    const room = "cli-checkout-branch";
    expect((await link(room, "acme/widgets", "feature")).status).toBe(200);
    const synced = await api("POST", `/api/rooms/${room}/repo/sync`);
    expect(synced.status).toBe(200);
    const featureTip = await repos.tip("acme/widgets", "feature");
    expect(synced.body).toMatchObject({ repo: "acme/widgets", branch: "feature", checkout: { sha: featureTip } });
    expect((await exec(room, "cat repo/feature.txt; git -C repo branch --show-current")).stdout).toBe("on a branch\nfeature\n");

    const newer = await repos.commit("acme/widgets", [{ "feature.txt": "moved on\n" }], "feature");
    const again = await api("POST", `/api/rooms/${room}/repo/sync`);
    expect(again.body).toMatchObject({ checkout: { sha: newer } });
    expect((await exec(room, "cat repo/feature.txt")).stdout).toBe("moved on\n");

    await sandbox.stack.restartWorker();
    expect((await api("GET", `/api/rooms/${room}/repo`)).body).toMatchObject({ checkout: { sha: newer } });
    expect((await exec(room, "git -C repo rev-parse HEAD")).stdout.trim()).toBe(newer);
  });

  it("a branch that does not exist, or a repository the git host lacks: one clear line, and no repo/ (nor anything half-made)", async () => {
    const room = "cli-checkout-nobranch";
    expect((await link(room, "acme/widgets", "no-such-branch")).status).toBe(200);
    const synced = await api("POST", `/api/rooms/${room}/repo/sync`);
    expect(synced).toEqual({ status: 404, body: expect.objectContaining({ error: 'branch "no-such-branch" does not exist in acme/widgets', code: "not_found" }) });
    const turn = await sandbox.stack.client.message(room, { text: "SAY: Checking. <run>ls -A</run>", userId: "U1" });
    expect(turn.reply).toContain('The checkout of acme/widgets failed: branch "no-such-branch" does not exist in acme/widgets.');
    expect(turn.runs[0].stdout).toBe("");
    expect(sandbox.stack.model.calls.at(-1)!.messages[0].content).toContain("its checkout could not be made");

    const ghost = "cli-checkout-ghost";
    expect((await link(ghost, "acme/ghost")).status).toBe(200);
    const missing = await api("POST", `/api/rooms/${ghost}/repo/sync`);
    expect(missing).toEqual({ status: 404, body: expect.objectContaining({ error: "acme/ghost was not found on the git host" }) });
    expect((await exec(ghost, "ls -A")).stdout).toBe("");
    expect((await api("GET", `/api/rooms/${ghost}/repo`)).body).toMatchObject({ checkout: null });
  });

  it("sync in a room with no repository is a 404 with what to do; GET on the sync route is a 405; a malformed link is a 400 with the rule", async () => {
    expect(await api("POST", "/api/rooms/cli-checkout-none/repo/sync")).toEqual({
      status: 404,
      body: expect.objectContaining({ error: "No repository is linked here, so there is nothing to sync: link one with the repo command first, e.g. `acme/widgets` or `acme/widgets@main`." }),
    });
    expect((await api("GET", "/api/rooms/cli-checkout-none/repo/sync")).status).toBe(405);
    const bad = await link("cli-checkout-none", "acme/..");
    expect(bad.status).toBe(400);
    expect(Object.values(bad.body.details as Record<string, string[]>).flat()).toContain('Repository name cannot be "." or contain ".."');
  });
});

describe("the repository's .duet/setup.sh", () => {
  const SETUP = "(cd ~/repo && bash .duet/setup.sh)";
  const turn = (room: string, text: string) => sandbox.stack.client.message(room, { text, userId: "U1" });

  it("runs once per checkout before the model's commands, output in the answer, and again only when it changed", async () => {
    const room = "cli-checkout-setup";
    expect((await link(room, "acme/setup")).status).toBe(200);
    const first = await turn(room, "SAY: Ready. <run>pwd</run>");
    expect(first.runs.map((r) => [r.cmd, r.stdout])).toEqual([
      [SETUP, "setting up in /workspace/repo\n"],
      ["pwd", "/workspace\n"],
    ]);
    expect((await turn(room, "SAY: Again. <run>true</run>")).runs.map((r) => r.cmd)).toEqual(["true"]);

    // A sync that brings the same script: not run again.
    await repos.commit("acme/setup", [{ "app.txt": "v2\n" }]);
    expect((await api("POST", `/api/rooms/${room}/repo/sync`)).status).toBe(200);
    expect((await turn(room, "SAY: Same. <run>cat repo/app.txt</run>")).runs.map((r) => [r.cmd, r.stdout])).toEqual([["cat repo/app.txt", "v2\n"]]);

    // A sync that changes it: run once more.
    await repos.commit("acme/setup", [{ ".duet/setup.sh": "echo changed\n" }]);
    expect((await api("POST", `/api/rooms/${room}/repo/sync`)).status).toBe(200);
    expect((await turn(room, "SAY: Changed. <run>true</run>")).runs.map((r) => [r.cmd, r.stdout])).toEqual([
      [SETUP, "changed\n"],
      ["true", ""],
    ]);
  });

  it("in an approve room it is proposed with the model's commands, and nothing runs", async () => {
    const room = "cli-checkout-setup-approve";
    expect((await api("PUT", `/api/rooms/${room}/policy`, { runPolicy: "approve", userId: "U1" })).status).toBe(200);
    expect((await link(room, "acme/setup")).status).toBe(200);
    const asked = await turn(room, "SAY: Setting up. <run>ls</run>");
    expect(asked.runs).toEqual([]);
    expect(asked.pending?.map((p) => p.cmd)).toEqual([SETUP, "ls"]);
    expect((await exec(room, "ls -A repo")).stdout).toContain("app.txt");
  });
});

describe("the token never lives in the sandbox", () => {
  it("a probe run during a Duet fetch sees none of the processes holding the token, and it and a watcher an earlier command left running find no token; the host's git held it, in its environment only", async () => {
    const room = "cli-checkout-probe";
    expect((await link(room, "acme/secrets")).status).toBe(200);
    // An earlier command leaves a watcher behind, reading every process's environment into the workspace.
    const watcher = await exec(room, WATCHER);
    expect(watcher.stdout).toBe("started\n");

    const held = github.holdNextFetch();
    let syncDone = false;
    const sync = api("POST", `/api/rooms/${room}/repo/sync`).finally(() => (syncDone = true));
    await held.arrived;
    // The barrier holds: Duet's git is mid-fetch with the token, and the host can see it.
    const during = await probeBesideHolders(leaks, () => exec(room, PROBE));
    expect(syncDone).toBe(false);
    held.release();
    expect((await sync).status).toBe(200);

    expect(during.exitCode).toBe(0);
    expect(during.stdout).toContain("HOME=/workspace");
    expect(leaks(during.stdout + during.stderr)).toEqual([]);
    const after = await exec(room, `${PROBE}; cat .watch 2>/dev/null | wc -c; cat .watch 2>/dev/null; cat repo/notes.md; grep -rIl x-access-token repo/.git || echo none`);
    expect(after.stdout).toContain("private\n");
    expect(after.stdout).toContain("none\n");
    expect(leaks(after.stdout + after.stderr)).toEqual([]);
  });

  it("a command that pushes on its own gets no credentials: origin refuses it, and a server in the sandbox sees no Authorization", async () => {
    const room = "cli-checkout-push";
    expect((await link(room, "acme/secrets")).status).toBe(200);
    expect((await api("POST", `/api/rooms/${room}/repo/sync`)).status).toBe(200);
    const requestsBefore = github.gitRequests.length;

    const push = await exec(room, "cd /workspace/repo && git -c user.name=Model -c user.email=model@example.com commit -q --allow-empty -m mine && GIT_TERMINAL_PROMPT=0 git push origin HEAD:refs/heads/duet/mine 2>&1; echo exit=$?");
    // The sandbox has no network (SANDBOX_NETWORK=none): the push dies before any credential could be asked for.
    expect(push.stdout).toMatch(/Could not resolve host|Failed to connect|Couldn't connect/);
    expect(push.stdout).toMatch(/exit=[1-9]/);
    expect(github.pushes()).toBe(0);
    expect(github.gitRequests.slice(requestsBefore).filter((r) => r.authorization !== null)).toEqual([]);
    expect(await repos.branches("acme/secrets")).toEqual(["main"]);

    // A git server of the command's own, on the sandbox's loopback, asking for credentials: git has none to give.
    const listener = `python3 -c '
import http.server, sys
class H(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        print("AUTH=" + str(self.headers.get("Authorization")), flush=True)
        self.send_response(401); self.send_header("WWW-Authenticate", "Basic realm=x"); self.end_headers()
    do_POST = do_GET
    def log_message(self, *a): pass
http.server.HTTPServer(("127.0.0.1", 8765), H).serve_forever()
' > /tmp/auth.log 2>&1 &
sleep 1; cd /workspace/repo && GIT_TERMINAL_PROMPT=0 git push http://127.0.0.1:8765/acme/secrets.git HEAD:refs/heads/duet/mine >/dev/null 2>&1; echo exit=$?; cat /tmp/auth.log`;
    const own = await exec(room, listener);
    expect(own.stdout).toMatch(/exit=[1-9]/);
    expect(own.stdout).toContain("AUTH=None");
    expect(own.stdout).not.toMatch(/AUTH=(?!None)/);
  });
});
