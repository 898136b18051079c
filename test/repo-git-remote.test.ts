import { execFileSync } from "node:child_process";
import { PassThrough } from "node:stream";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCli } from "../scripts/duet-cli.ts";
import { startFakeGitRemote, type FakeGitRemote } from "./fakes/git-remote.ts";
import { BareRepos } from "./helpers/git-repos.ts";
import { PROBE, probeBesideHolders, WATCHER } from "./helpers/host-proc.ts";
import { startSandboxStack, type SandboxStack } from "./helpers/sandbox-stack.ts";
import { workerApi } from "./helpers/worker-api.ts";

/**
 * A room's repository on a plain git remote (no GitHub App): the real Worker
 * (workerd) and bubblewrap executor against `git http-backend` that takes a
 * token as Basic auth, as Gitea or GitLab do. Linking checks the remote,
 * the checkout and the push go through Duet's own git steps with
 * DUET_GIT_REMOTE_TOKEN, and opening a proposal pushes a `duet/` branch and
 * answers its name: no pull request.
 */

const TOKEN = "glpat-remote-0123456789abcdef";

let repos: BareRepos;
let remote: FakeGitRemote;
let sandbox: SandboxStack;
let mainTip: string;

beforeAll(async () => {
  repos = new BareRepos();
  mainTip = await repos.create("acme/widgets", [{ "README.md": "# Widgets\n" }, { "src/a.txt": "alpha\n" }]);
  remote = await startFakeGitRemote(repos.root, TOKEN);
  sandbox = await startSandboxStack({ wire: ({ url, token }) => ({ SANDBOX_URL: url, SANDBOX_TOKEN: token, DUET_GIT_REMOTE_URL: remote.template, DUET_GIT_REMOTE_TOKEN: TOKEN }) });
}, 120_000);

afterAll(async () => {
  await sandbox?.stop();
  await remote?.close();
  repos?.remove();
});

const api = workerApi(() => sandbox.stack);

const exec = async (roomId: string, cmd: string) => (await sandbox.stack.client.exec(roomId, { cmd })).result;
/** The token, and the Basic header git sends with it. */
const leaks = (text: string) => [TOKEN, Buffer.from(`x-access-token:${TOKEN}`).toString("base64")].filter((form) => text.includes(form));

describe("a plain git remote with a token", () => {
  it("links (checked against the remote), clones at repo/, and opening the change pushes a duet/ branch with exactly it: the branch's name is the answer, no pull request", async () => {
    const room = "cli-gitremote";
    const linked = await api("PUT", `/api/rooms/${room}/repo`, { repo: "acme/widgets", userId: "U1" });
    expect(linked).toEqual({ status: 200, body: { repo: "acme/widgets", branch: null, provider: "git", source: "room", checkout: null } });
    const synced = await api("POST", `/api/rooms/${room}/repo/sync`);
    expect(synced.status).toBe(200);
    expect((await exec(room, "git -C ~/repo log --format=%H -1")).stdout.trim()).toBe(mainTip);

    // The model's probe finds no token: not in its environment, the checkout's config, nor any process it can see.
    const probe = await exec(room, `env; cat repo/.git/config; for f in /proc/[0-9]*/environ /proc/[0-9]*/cmdline; do tr '\\0' '\\n' < "$f" 2>/dev/null; echo; done`);
    expect(probe.stdout).toContain("[remote \"origin\"]");
    expect(leaks(probe.stdout + probe.stderr)).toEqual([]);

    await exec(room, "cd ~/repo && echo ALPHA >> src/a.txt");
    const proposal = await api("POST", `/api/rooms/${room}/repo/pr`, { userId: "U1", title: "Shout alpha" });
    expect(proposal.status).toBe(200);
    const branch = proposal.body.branch as string;
    expect(branch).toMatch(/^duet\/shout-alpha-[0-9a-f]{6}$/);
    const opened = await api("POST", `/api/rooms/${room}/repo/pr/${proposal.body.id}/open`, { userId: "U1" });
    expect(opened).toEqual({ status: 200, body: { url: `${remote.url}/git/acme/widgets.git`, number: 0, branch, branchOnly: true, by: "U1" } });
    expect(remote.pushes()).toBe(1);
    expect(await repos.branches("acme/widgets")).toEqual([branch, "main"].sort());
    const bare = `${repos.root}/acme/widgets.git`;
    const git = (...args: string[]) => execFileSync("git", ["-C", bare, ...args]).toString().trim();
    expect(git("diff", "--name-only", "main", branch)).toBe("src/a.txt");
    expect(git("show", `${branch}:src/a.txt`)).toBe("alpha\nALPHA");
    expect(git("rev-parse", "main")).toBe(mainTip);
    // Every git request Duet made carried the token; none went without it.
    expect(remote.requests.every((r) => r.allowed)).toBe(true);

    const kinds = ((await api("GET", `/api/rooms/${room}/audit`)).body.entries as { kind: string }[]).map((e) => e.kind).filter((k) => k !== "direct");
    expect(kinds).toEqual(["repo", "pr-proposed", "pr-opened"]);
    const view = await api("GET", `/api/rooms/${room}/repo`);
    expect(view.body).toMatchObject({ provider: "git", checkout: { sha: mainTip } });
  });

  it("a probe run during a Duet fetch and during a Duet push sees none of the processes holding the token, and it and a watcher an earlier command left running find no token; the host's git held it, in its environment only", async () => {
    const room = "cli-gitprobe";
    expect((await api("PUT", `/api/rooms/${room}/repo`, { repo: "acme/widgets", userId: "U1" })).status).toBe(200);
    // An earlier command leaves a watcher behind, reading every process's environment into the workspace.
    expect((await exec(room, WATCHER)).stdout).toBe("started\n");

    // The fetch held mid-pack: Duet's git has the token now, and the host can see it.
    const fetchHeld = remote.holdNext("upload-pack");
    let syncDone = false;
    const sync = api("POST", `/api/rooms/${room}/repo/sync`).finally(() => (syncDone = true));
    await fetchHeld.arrived;
    const duringFetch = await probeBesideHolders(leaks, () => exec(room, PROBE));
    expect(syncDone).toBe(false);
    fetchHeld.release();
    expect((await sync).status).toBe(200);
    expect(duringFetch.stdout).toContain("HOME=/workspace");
    expect(leaks(duringFetch.stdout + duringFetch.stderr)).toEqual([]);

    // The push held mid-pack the same way, with the change Duet is pushing.
    await exec(room, "cd ~/repo && echo probed > src/p.txt");
    const proposal = await api("POST", `/api/rooms/${room}/repo/pr`, { userId: "U1", title: "Probe" });
    expect(proposal.status).toBe(200);
    const pushHeld = remote.holdNext("receive-pack");
    let openDone = false;
    const open = api("POST", `/api/rooms/${room}/repo/pr/${proposal.body.id}/open`, { userId: "U1" }).finally(() => (openDone = true));
    await pushHeld.arrived;
    const duringPush = await probeBesideHolders(leaks, () => exec(room, PROBE));
    expect(openDone).toBe(false);
    pushHeld.release();
    expect((await open).status).toBe(200);
    expect(duringPush.stdout).toContain("HOME=/workspace");
    expect(leaks(duringPush.stdout + duringPush.stderr)).toEqual([]);

    // Whatever the watcher wrote holds no token either.
    const after = await exec(room, `cd ~ && ${PROBE}; cat ~/.watch 2>/dev/null`);
    expect(leaks(after.stdout + after.stderr)).toEqual([]);
  });

  it("a command that pushes on its own gets no credentials; a repository the remote lacks is a 404 with one line, and nothing is linked", async () => {
    const room = "cli-gitmissing";
    const missing = await api("PUT", `/api/rooms/${room}/repo`, { repo: "acme/ghost", userId: "U1" });
    expect(missing.status).toBe(404);
    expect(missing.body.error).toBe("the git remote has no repository acme/ghost that DUET_GIT_REMOTE_TOKEN may read: check the name, or the token's access");
    expect((await api("GET", `/api/rooms/${room}/repo`)).body).toEqual({ repo: null });

    expect((await api("PUT", `/api/rooms/${room}/repo`, { repo: "acme/widgets", userId: "U1" })).status).toBe(200);
    expect((await api("POST", `/api/rooms/${room}/repo/sync`)).status).toBe(200);
    const pushesBefore = remote.pushes();
    const requestsBefore = remote.requests.length;
    const push = await exec(room, `cd ~/repo && git -c user.name=M -c user.email=m@example.com commit -q --allow-empty -m mine && GIT_TERMINAL_PROMPT=0 git push ${remote.url}/git/acme/widgets.git HEAD:refs/heads/duet/mine 2>&1; echo exit=$?`);
    expect(push.stdout).toMatch(/exit=[1-9]/);
    expect(remote.pushes()).toBe(pushesBefore);
    expect(remote.requests.slice(requestsBefore).filter((r) => r.authorization !== null)).toEqual([]);
    expect(await repos.branches("acme/widgets")).not.toContain("duet/mine");
  });

  it("in the CLI, opening a proposal says which branch was pushed, and that there is no pull request", async () => {
    const room = "cli-gitremotecli";
    const said: string[] = [];
    const duet = async (...argv: string[]) => {
      const out = new PassThrough();
      out.on("data", (d) => said.push(String(d)));
      const env = { DUET_WORKER_URL: sandbox.stack.workerUrl, DUET_API_TOKEN: sandbox.stack.token, NO_COLOR: "1", DUET_STREAMING: "off", DUET_HOME: repos.root };
      return runCli(argv, { env, stdin: new PassThrough(), stdout: out, stderr: new PassThrough() });
    };
    expect(await duet("repo", room, "acme/widgets")).toBe(0);
    expect(said.join("")).toContain("acme/widgets` (git remote)");
    expect(await duet("ask", room, "SAY: changing it <run>cd ~/repo && echo omega > src/o.txt</run>")).toBe(0);
    said.length = 0;
    expect(await duet("pr", room, "Add", "omega")).toBe(0);
    const id = /--open ([0-9a-f]{8})/.exec(said.join(""))![1];
    said.length = 0;
    expect(await duet("pr", room, "--open", id)).toBe(0);
    const branch = /duet\/add-omega-[0-9a-f]{6}/.exec(said.join(""))![0];
    expect(said.join("").trimEnd()).toMatch(
      new RegExp(`^cli:\\S+ pushed the change to branch \`${branch}\` of ${remote.url}/git/acme/widgets\\.git \\(a plain git remote: open a merge request there from that branch\\)\\.$`),
    );
    expect(await repos.branches("acme/widgets")).toContain(branch);
  });
});
