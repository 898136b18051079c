import { execFileSync } from "node:child_process";
import { generateKeyPairSync } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startFakeGithub, type FakeGithub } from "./fakes/github.ts";
import { BareRepos } from "./helpers/git-repos.ts";
import { startSandboxStack, type SandboxStack } from "./helpers/sandbox-stack.ts";

/**
 * From a change in the room's checkout to a pull request, through the real
 * Worker (workerd), the real bubblewrap executor and a fake GitHub whose git
 * host is `git http-backend` on bare repositories.
 */

const APP_ID = "31338";
const { privateKey, publicKey } = generateKeyPairSync("rsa", { modulusLength: 2048 });

let github: FakeGithub;
let repos: BareRepos;
let sandbox: SandboxStack;
let mainTip: string;

beforeAll(async () => {
  repos = new BareRepos();
  mainTip = await repos.create("acme/widgets", [{ "README.md": "# Widgets\n" }, { "src/a.txt": "alpha\n", "src/b.txt": "beta\n" }]);
  github = await startFakeGithub({ appId: APP_ID, publicKey, gitRoot: repos.root });
  github.addRepo({ fullName: "acme/widgets", installationId: 9 });
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

async function api(method: string, path: string, body?: unknown, raw?: string): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await fetch(`${sandbox.stack.workerUrl}${path}`, {
    method,
    headers: { authorization: `Bearer ${sandbox.stack.token}`, "content-type": "application/json" },
    ...(raw !== undefined ? { body: raw } : body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

const link = (roomId: string) => api("PUT", `/api/rooms/${roomId}/repo`, { repo: "acme/widgets", userId: "U1" });
const exec = async (roomId: string, cmd: string) => (await sandbox.stack.client.exec(roomId, { cmd })).result;
const propose = (roomId: string, body: unknown) => api("POST", `/api/rooms/${roomId}/repo/pr`, body);

/** A room with the repository checked out at repo/. */
async function checkedOut(room: string): Promise<void> {
  expect((await link(room)).status).toBe(200);
  expect((await api("POST", `/api/rooms/${room}/repo/sync`)).status).toBe(200);
}

describe("proposing the change in repo/ as a pull request", () => {
  it("shows the diffstat and files of exactly the model's change (edit, new, deleted, staged or not), leaves the person's index as it was, and audits it", async () => {
    const room = "cli-pr-propose";
    await checkedOut(room);
    // The model's change: an edit left unstaged, a new file staged, a deleted file, and an ignored file that is not part of it.
    const made = await exec(
      room,
      "cd ~/repo && printf '# Widgets\\nNow with sprockets.\\n' > README.md && echo gamma > src/c.txt && git add src/c.txt && rm src/b.txt && echo '*.log' > .git/info/exclude && echo noise > run.log && git status --porcelain",
    );
    expect(made.stdout).toBe(" M README.md\n D src/b.txt\nA  src/c.txt\n");

    const asked = await propose(room, { userId: "U1", title: "Add sprockets to the README!" });
    expect(asked.status).toBe(200);
    expect(asked.body).toMatchObject({
      repo: "acme/widgets",
      base: "main",
      baseSha: mainTip,
      title: "Add sprockets to the README!",
      diffstat: "3 files changed, 2 insertions(+), 1 deletion(-)",
      files: [
        { path: "README.md", added: 1, removed: 0 },
        { path: "src/b.txt", added: 0, removed: 1 },
        { path: "src/c.txt", added: 1, removed: 0 },
      ],
      requestedBy: "U1",
    });
    expect(asked.body.branch).toMatch(/^duet\/add-sprockets-to-the-readme-[0-9a-f]{6}$/);
    expect(asked.body.diffHead).toContain("+Now with sprockets.");
    expect((asked.body.diffHead as string).split("\n").length).toBeLessThanOrEqual(41);

    // The person's index is theirs: still only src/c.txt staged.
    expect((await exec(room, "cd ~/repo && git status --porcelain")).stdout).toBe(made.stdout);
    const audit = await api("GET", `/api/rooms/${room}/audit`);
    expect((audit.body.entries as Array<Record<string, unknown>>).find((e) => e.kind === "pr-proposed")).toMatchObject({ kind: "pr-proposed", repo: "acme/widgets", branch: asked.body.branch, title: "Add sprockets to the README!", requestedBy: "U1" });
  });

  it("nothing changed: a 409 with one line; a room with no repository, or none checked out: a 404 with what to do", async () => {
    const room = "cli-pr-nothing";
    await checkedOut(room);
    const none = await propose(room, { userId: "U1" });
    expect(none).toEqual({ status: 409, body: expect.objectContaining({ code: "nothing_changed", error: `nothing changed in repo/ since main at ${mainTip.slice(0, 7)}: there is no pull request to open` }) });
    // A commit the model made counts as a change: the base is the commit checked out.
    await exec(room, "cd ~/repo && echo more >> src/a.txt && git -c user.name=M -c user.email=m@x commit -qam more");
    const committed = await propose(room, { userId: "U1" });
    expect(committed.body).toMatchObject({ title: "Update src/a.txt", diffstat: "1 file changed, 1 insertion(+)" });
    expect(committed.body.branch).toMatch(/^duet\/update-src-a-txt-[0-9a-f]{6}$/);

    expect(await propose("cli-pr-norepo", { userId: "U1" })).toEqual({ status: 404, body: expect.objectContaining({ error: "this room has no repository linked: link one first (PUT /api/rooms/:roomId/repo)" }) });
    expect((await link("cli-pr-nosync")).status).toBe(200);
    expect(await propose("cli-pr-nosync", { userId: "U1" })).toEqual({ status: 404, body: expect.objectContaining({ error: "acme/widgets is not checked out in this room yet: sync it first (POST /api/rooms/:roomId/repo/sync)" }) });
  });

  it("empty, oversized, malformed and hostile bodies are 400s with the rule; a hostile title only makes a tame branch", async () => {
    const room = "cli-pr-bad";
    expect((await api("POST", `/api/rooms/${room}/repo/pr`, undefined, "{not json")).status).toBe(400);
    expect((await propose(room, {})).status).toBe(400);
    expect((await propose(room, { userId: "" })).status).toBe(400);
    const long = await propose(room, { userId: "U1", title: "x".repeat(201) });
    expect(long.status).toBe(400);
    expect(JSON.stringify(long.body)).toContain("Title must be at most 200 characters");
    expect((await propose(room, { userId: "U1", title: 7 })).status).toBe(400);
    expect(JSON.stringify((await propose(room, { userId: "U1", title: "a\u0000b" })).body)).toContain("Title cannot hold control characters");

    await checkedOut(room);
    await exec(room, "echo x >> repo/README.md");
    const hostile = await propose(room, { userId: "U1", title: "$(touch /tmp/pwned); ../../refs/heads/main" });
    expect(hostile.status).toBe(200);
    expect(hostile.body.branch).toMatch(/^duet\/touch-tmp-pwned-refs-heads-main-[0-9a-f]{6}$/);
    expect((await exec(room, "ls /tmp/pwned 2>&1 || true")).stdout).toContain("No such file");
  });
});

/** git on the fake host's bare repository. */
const hostGit = (...args: string[]) => execFileSync("git", ["-C", `${repos.root}/acme/widgets.git`, ...args]).toString().trim();

describe("opening the proposal as a pull request", () => {
  it("pushes exactly the change to the duet/ branch (main untouched), opens the PR with the thread and the asker, and opening again answers the same", async () => {
    const room = "cli-pr-open";
    await checkedOut(room);
    await exec(room, "cd ~/repo && echo delta > src/d.txt && printf 'alpha\\nALPHA\\n' > src/a.txt");
    const proposal = (await propose(room, { userId: "U7", title: "Add delta" })).body;
    const mainBefore = await repos.tip("acme/widgets", "main");
    const pushesBefore = github.pushes();

    const opened = await api("POST", `/api/rooms/${room}/repo/pr/${proposal.id}/open`, { userId: "U8", threadUrl: "https://acme.slack.com/archives/C1/p123" });
    expect(opened.status).toBe(200);
    expect(opened.body).toEqual({ url: expect.stringMatching(/\/acme\/widgets\/pull\/\d+$/), number: expect.any(Number), branch: proposal.branch, by: "U8" });
    expect(github.pushes()).toBe(pushesBefore + 1);
    expect(await repos.tip("acme/widgets", "main")).toBe(mainBefore);
    const branch = proposal.branch as string;
    expect(hostGit("diff", "--stat", "main", branch)).toContain("2 files changed, 2 insertions(+)");
    expect(hostGit("diff", "--name-only", "main", branch)).toBe("src/a.txt\nsrc/d.txt");
    expect(hostGit("log", "--format=%an %s", "-1", branch)).toBe("Duet Add delta");
    const pull = github.pulls.find((p) => p.head === branch)!;
    expect(pull).toMatchObject({ repo: "acme/widgets", base: "main", title: "Add delta", permissions: { pull_requests: "write" } });
    expect(pull.body).toContain("https://acme.slack.com/archives/C1/p123");
    expect(pull.body).toContain("asked for by U7");
    // The push's token could write contents and nothing else; the sandbox's repo/ has no ref left behind.
    expect(github.tokenRequests.some((t) => t.permissions?.contents === "write" && Object.keys(t.permissions).length === 1 && t.repositories?.join() === "widgets")).toBe(true);
    expect((await exec(room, "git -C ~/repo for-each-ref refs/duet; git -C ~/repo status --porcelain")).stdout).toBe(" M src/a.txt\n?? src/d.txt\n");

    // Another's click after it: the first click's answer, naming who opened it, so the front end can show it as that click would have.
    const again = await api("POST", `/api/rooms/${room}/repo/pr/${proposal.id}/open`, { userId: "U9" });
    expect(again).toEqual({ status: 200, body: { ...opened.body, already: true } });
    expect(github.pushes()).toBe(pushesBefore + 1);
    expect(github.pulls.filter((p) => p.head === branch)).toHaveLength(1);
    const audit = (await api("GET", `/api/rooms/${room}/audit`)).body.entries as Array<Record<string, unknown>>;
    expect(audit.filter((e) => e.kind === "pr-opened")).toEqual([expect.objectContaining({ url: opened.body.url, branch, requestedBy: "U8" })]);

    // More changes: the next proposal keeps the branch, and opening it pushes a commit on top of the last (fast-forward), same PR.
    const firstHead = hostGit("rev-parse", branch);
    await exec(room, "cd ~/repo && echo epsilon > src/e.txt");
    const more = (await propose(room, { userId: "U7" })).body;
    expect(more.branch).toBe(branch);
    const reopened = await api("POST", `/api/rooms/${room}/repo/pr/${more.id}/open`, { userId: "U8" });
    expect(reopened.body).toEqual({ ...opened.body, updated: true });
    expect((await api("POST", `/api/rooms/${room}/repo/pr/${more.id}/open`, { userId: "U9" })).body).toEqual({ ...opened.body, updated: true, already: true });
    expect(hostGit("rev-parse", `${branch}^`)).toBe(firstHead);
    expect(hostGit("diff", "--name-only", "main", branch)).toBe("src/a.txt\nsrc/d.txt\nsrc/e.txt");
    expect(github.pulls.filter((p) => p.head === branch)).toHaveLength(1);
    expect(await repos.tip("acme/widgets", "main")).toBe(mainBefore);
  });

  it("GitHub made the PR but its answer was lost (Duet died before keeping it): opening again finds that PR, records it once, and opens no second", async () => {
    const room = "cli-pr-lost";
    await checkedOut(room);
    await exec(room, "cd ~/repo && echo eta > src/h.txt");
    const proposal = (await propose(room, { userId: "U7", title: "Add eta" })).body;
    const branch = proposal.branch as string;
    github.loseNextPullAnswer();
    const lost = await api("POST", `/api/rooms/${room}/repo/pr/${proposal.id}/open`, { userId: "U8" });
    expect(lost.status).toBeGreaterThanOrEqual(500);
    expect(github.pulls.filter((p) => p.head === branch)).toHaveLength(1);
    const tip = hostGit("rev-parse", branch);

    const retried = await api("POST", `/api/rooms/${room}/repo/pr/${proposal.id}/open`, { userId: "U8" });
    const pull = github.pulls.find((p) => p.head === branch)!;
    expect(retried).toEqual({ status: 200, body: { url: pull.html_url, number: pull.number, branch, by: "U8" } });
    // The same commit was pushed again (its date is the proposal's), so the branch did not move and no second PR was opened.
    expect(hostGit("rev-parse", branch)).toBe(tip);
    expect(github.pulls.filter((p) => p.head === branch)).toHaveLength(1);
    const audit = (await api("GET", `/api/rooms/${room}/audit`)).body.entries as Array<Record<string, unknown>>;
    expect(audit.filter((e) => e.kind === "pr-opened")).toEqual([expect.objectContaining({ url: pull.html_url, branch })]);
  });

  it("a branch that moved on the host is not overwritten: one clear line, no PR recorded", async () => {
    const room = "cli-pr-moved";
    await checkedOut(room);
    await exec(room, "cd ~/repo && echo zeta > src/z.txt");
    const proposal = (await propose(room, { userId: "U1", title: "Zeta" })).body;
    const branch = proposal.branch as string;
    // Someone else made the branch first.
    const theirs = await repos.commit("acme/widgets", [{ "other.txt": "theirs\n" }], branch, "main");
    const pullsBefore = github.pulls.length;
    const refused = await api("POST", `/api/rooms/${room}/repo/pr/${proposal.id}/open`, { userId: "U1" });
    expect(refused).toEqual({ status: 409, body: expect.objectContaining({ error: `${branch} in acme/widgets has commits Duet does not have: it was not overwritten` }) });
    expect(hostGit("rev-parse", branch)).toBe(theirs);
    expect(github.pulls.length).toBe(pullsBefore);
    expect(((await api("GET", `/api/rooms/${room}/audit`)).body.entries as Array<Record<string, unknown>>).some((e) => e.kind === "pr-opened")).toBe(false);
  });

  it("GitHub refuses the pull request for good after the push: the duet/ branch just pushed is deleted, no other branch is touched; a refusal worth retrying keeps it for the retry", async () => {
    const room = "cli-pr-refused";
    await checkedOut(room);
    const other = await repos.commit("acme/widgets", [{ "other.txt": "someone's\n" }], "duet/someone-elses", "main");
    await exec(room, "cd ~/repo && echo theta > src/t.txt");
    const proposal = (await propose(room, { userId: "U1", title: "Theta" })).body;
    const branch = proposal.branch as string;
    const branches = () => hostGit("for-each-ref", "--format=%(refname:short) %(objectname)", "refs/heads").split("\n").sort();
    const before = branches();
    const pushesBefore = github.pushes();
    github.refuseNextPull(422, "Validation Failed");
    const refused = await api("POST", `/api/rooms/${room}/repo/pr/${proposal.id}/open`, { userId: "U1" });
    expect(refused.status).toBe(502);
    expect(refused.body.error).toBe(`GitHub answered HTTP 422 while opening a pull request on acme/widgets: Validation Failed`);
    // The push happened, and what it made is gone again: the branches are as they were, someone else's duet/ branch included.
    expect(github.pushes()).toBe(pushesBefore + 1);
    expect(github.deletedBranches).toEqual([`acme/widgets:${branch}`]);
    expect(branches()).toEqual(before);
    expect(hostGit("rev-parse", "duet/someone-elses")).toBe(other);
    expect(((await api("GET", `/api/rooms/${room}/audit`)).body.entries as Array<Record<string, unknown>>).some((e) => e.kind === "pr-opened")).toBe(false);

    // GitHub failing (5xx) is worth retrying: the branch stays, and the retry opens the pull request on it.
    github.refuseNextPull(502, "Server Error");
    expect((await api("POST", `/api/rooms/${room}/repo/pr/${proposal.id}/open`, { userId: "U1" })).status).toBeGreaterThanOrEqual(500);
    const kept = hostGit("rev-parse", branch);
    expect(github.deletedBranches).toHaveLength(1);
    const opened = await api("POST", `/api/rooms/${room}/repo/pr/${proposal.id}/open`, { userId: "U1" });
    expect(opened.status).toBe(200);
    expect(github.pulls.find((p) => p.head === branch)).toBeDefined();
    expect(hostGit("rev-parse", branch)).toBe(kept);
  });

  it("without GITHUB_WEBHOOK_SECRET, GitHub's webhook is refused 503 with what to set, whatever it carries", async () => {
    const res = await fetch(`${sandbox.stack.workerUrl}/github/webhook`, { method: "POST", headers: { "x-github-event": "pull_request", "x-hub-signature-256": `sha256=${"0".repeat(64)}` }, body: "{}" });
    expect(res.status).toBe(503);
    expect(await res.json()).toMatchObject({ code: "github_not_configured", error: "GitHub webhooks are not set up on this Worker: set GITHUB_WEBHOOK_SECRET (with the GitHub App) to receive them (see docs/configuration.md)" });
  });

  it("an unknown proposal is a 404; a malformed open body is a 400", async () => {
    expect((await api("POST", "/api/rooms/cli-pr-open-none/repo/pr/abc/open", { userId: "U1" })).status).toBe(404);
    expect((await api("POST", "/api/rooms/cli-pr-open-none/repo/pr/abc/open", { userId: "U1", threadUrl: "javascript:alert(1)" })).status).toBe(400);
    expect((await api("POST", "/api/rooms/cli-pr-open-none/repo/pr/abc/open", { userId: "U1", threadUrl: "x".repeat(3000) })).status).toBe(400);
    expect((await api("POST", "/api/rooms/cli-pr-open-none/repo/pr/abc/open", {})).status).toBe(400);
  });
});
