import { describe, expect, it } from "vitest";
import { audit } from "./control-helpers.ts";
import { api, freshRoom, killRoom, send } from "./helpers.ts";

const setRepo = async (room: string, body: Record<string, unknown>) => {
  const res = await api(`/api/rooms/${room}/repo`, { method: "PUT", json: { userId: "U-admin", ...body } });
  return { status: res.status, body: (await res.json()) as any };
};
const repoOf = async (room: string) => {
  const res = await api(`/api/rooms/${room}/repo`);
  expect(res.status).toBe(200);
  return (await res.json()) as any;
};
const removeRepo = async (room: string, userId = "U-admin") => {
  const res = await api(`/api/rooms/${room}/repo?userId=${userId}`, { method: "DELETE" });
  return { status: res.status, body: (await res.json()) as any };
};

/** A Slack channel room no other test uses, and its thread rooms. */
function channelAndThread() {
  const channel = `slack-${freshRoom("T").replace(/-/g, "")}-C1`;
  return { channel, thread: (ts: string) => `${channel}-${ts}` };
}

const linked = (repo: string, branch: string | null, source: "room" | "channel") => ({ repo, branch, provider: "github", source, checkout: null });

describe("a room's repository", () => {
  it("has none, links one (audited), answers it, and unlinks it (audited)", async () => {
    const room = freshRoom();
    expect(await repoOf(room)).toEqual({ repo: null });
    expect(await setRepo(room, { repo: "acme/widgets", branch: "release/2.x" })).toEqual({ status: 200, body: linked("acme/widgets", "release/2.x", "room") });
    expect(await repoOf(room)).toEqual(linked("acme/widgets", "release/2.x", "room"));
    // No branch: the repository's default.
    expect((await setRepo(room, { repo: " acme/gadgets.js " })).body).toEqual(linked("acme/gadgets.js", null, "room"));
    await killRoom(room);
    expect(await repoOf(room)).toEqual(linked("acme/gadgets.js", null, "room"));
    expect(await removeRepo(room, "U-leaver")).toEqual({ status: 200, body: { repo: null } });
    expect(await repoOf(room)).toEqual({ repo: null });
    // A second unlink changes nothing and audits nothing.
    expect((await removeRepo(room)).body).toEqual({ repo: null });
    const entries = (await audit(room)).map(({ kind, repo, branch, requestedBy }) => ({ kind, repo, branch, requestedBy }));
    expect(entries).toEqual([
      { kind: "repo", repo: "acme/widgets", branch: "release/2.x", requestedBy: "U-admin" },
      { kind: "repo", repo: "acme/gadgets.js", branch: undefined, requestedBy: "U-admin" },
      { kind: "repo-removed", repo: "acme/gadgets.js", branch: undefined, requestedBy: "U-leaver" },
    ]);
  });

  it("a thread room follows its channel's repository, across a restart, until it links its own", async () => {
    const { channel, thread } = channelAndThread();
    const early = thread("1700000000.000100");
    expect((await send(early, "SAY: registered")).status).toBe(200);
    expect((await setRepo(channel, { repo: "acme/widgets" })).status).toBe(200);
    // A thread registered before the link is told; one that first asks after it learns it on registering.
    expect(await repoOf(early)).toEqual(linked("acme/widgets", null, "channel"));
    const late = thread("1700000000.000200");
    expect(await repoOf(late)).toEqual(linked("acme/widgets", null, "channel"));
    await killRoom(early);
    expect(await repoOf(early)).toEqual(linked("acme/widgets", null, "channel"));

    expect((await setRepo(early, { repo: "acme/fork", branch: "fix-1" })).body).toEqual(linked("acme/fork", "fix-1", "room"));
    await setRepo(channel, { repo: "acme/widgets", branch: "next" });
    expect(await repoOf(early)).toEqual(linked("acme/fork", "fix-1", "room"));
    expect(await repoOf(late)).toEqual(linked("acme/widgets", "next", "channel"));

    // Unlinking the thread's own: it follows its channel again; unlinking the channel's: neither has one.
    expect((await removeRepo(early)).body).toEqual(linked("acme/widgets", "next", "channel"));
    expect((await removeRepo(channel)).body).toEqual({ repo: null });
    expect(await repoOf(early)).toEqual({ repo: null });
    expect(await repoOf(late)).toEqual({ repo: null });
    // The channel's links are audited in the channel, the thread's in the thread.
    expect((await audit(channel)).map((e) => e.kind)).toEqual(["repo", "repo", "repo-removed"]);
    expect((await audit(early)).map((e) => e.kind)).toEqual(["repo", "repo-removed"]);
  });

  it("a person's reset keeps the repository; deleting the room removes it", async () => {
    const room = freshRoom();
    await setRepo(room, { repo: "acme/widgets" });
    expect((await api(`/api/rooms/${room}?userId=U-resetter`, { method: "DELETE" })).status).toBe(200);
    expect(await repoOf(room)).toEqual(linked("acme/widgets", null, "room"));
    expect((await api(`/api/rooms/${room}`, { method: "DELETE" })).status).toBe(200);
    expect(await repoOf(room)).toEqual({ repo: null });
  });

  const OWNER_RULE = "Repository owner must be 1-39 letters, digits or single hyphens, not starting or ending with a hyphen";
  const NAME_RULE = 'Repository name must be 1-100 characters of A-Z, a-z, 0-9, ".", "_" or "-"';
  const SHAPE_RULE = 'Repository must be owner/name (one "/")';
  const DOTS_RULE = 'Repository name cannot be "." or contain ".."';
  const BRANCH_CHARS = "Branch cannot hold spaces, control or invisible characters, or any of ~ ^ : ? * [ \\";
  const badRepos: [string, unknown, string][] = [
    ["empty", "", "Repository cannot be empty"],
    ["blank", "   ", "Repository cannot be empty"],
    ["not a string", 42, "Repository must be a string"],
    ["no slash", "widgets", SHAPE_RULE],
    ["three parts", "a/b/c", SHAPE_RULE],
    ["a path up", "../x", OWNER_RULE],
    ["owner/..", "owner/..", DOTS_RULE],
    ["owner/.", "owner/.", DOTS_RULE],
    ["dots inside", "owner/a..b", DOTS_RULE],
    ["owner with a leading hyphen", "-acme/widgets", OWNER_RULE],
    ["owner with a double hyphen", "ac--me/widgets", OWNER_RULE],
    ["owner too long", `${"a".repeat(40)}/widgets`, OWNER_RULE],
    ["name too long", `acme/${"w".repeat(101)}`, NAME_RULE],
    ["oversized", "a".repeat(10_000), SHAPE_RULE],
    ["unicode", "acmé/widgets", OWNER_RULE],
    ["unicode name", "acme/wídgets", NAME_RULE],
    ["a URL", "https://github.com/acme/widgets", SHAPE_RULE],
    ["spaces inside", "acme/wid gets", NAME_RULE],
    ["empty name", "acme/", NAME_RULE],
  ];
  for (const [what, repo, rule] of badRepos) {
    it(`refuses a repository name that is ${what} with a 400 saying the rule, and keeps the link`, async () => {
      const room = freshRoom();
      await setRepo(room, { repo: "acme/kept" });
      const res = await setRepo(room, { repo });
      expect(res.status).toBe(400);
      expect(res.body.details).toEqual({ repo: [rule] });
      expect((await repoOf(room)).repo).toBe("acme/kept");
    });
  }

  const badBranches: [string, unknown, string][] = [
    ["empty", "", "Branch cannot be empty"],
    ["starting with -", "-x", 'Branch cannot start with "-"'],
    ["holding ..", "a..b", 'Branch cannot hold ".." or "@{", or be "@"'],
    ["@", "@", 'Branch cannot hold ".." or "@{", or be "@"'],
    ["holding @{", "main@{1}", 'Branch cannot hold ".." or "@{", or be "@"'],
    ["holding a space", "my branch", BRANCH_CHARS],
    ["holding a control character", "ma\u0007in", BRANCH_CHARS],
    ["holding a bidi override", "main\u202Egol", BRANCH_CHARS],
    ["holding ~", "main~1", BRANCH_CHARS],
    ["holding :", "a:b", BRANCH_CHARS],
    ["holding *", "feat*", BRANCH_CHARS],
    ["holding a backslash", "a\\b", BRANCH_CHARS],
    ["starting with /", "/main", 'Branch cannot start or end with "/" or hold "//"'],
    ["holding //", "a//b", 'Branch cannot start or end with "/" or hold "//"'],
    ["ending with .", "main.", 'Branch cannot end with "." and no part of it may start with "." or end with ".lock"'],
    ["with a part ending .lock", "a.lock/b", 'Branch cannot end with "." and no part of it may start with "." or end with ".lock"'],
    ["with a part starting .", "feat/.hidden", 'Branch cannot end with "." and no part of it may start with "." or end with ".lock"'],
    ["oversized", "b".repeat(256), "Branch must be at most 255 characters"],
    ["not a string", ["main"], "Branch must be a string"],
  ];
  for (const [what, branch, rule] of badBranches) {
    it(`refuses a branch ${what} with a 400 saying the rule`, async () => {
      const room = freshRoom();
      const res = await setRepo(room, { repo: "acme/widgets", branch });
      expect(res.status).toBe(400);
      expect(res.body.details).toEqual({ branch: [rule] });
      expect(await repoOf(room)).toEqual({ repo: null });
    });
  }

  it("accepts the branch names git accepts, unicode letters included", async () => {
    const room = freshRoom();
    for (const branch of ["main", "release/2.x", "feature/ünïcode", "a-b_c.d", "v1.2.3"]) {
      expect((await setRepo(room, { repo: "my-org/my.repo_name", branch })).body).toEqual(linked("my-org/my.repo_name", branch, "room"));
    }
  });

  it("refuses a repository the GitHub App cannot see with a 404 whose line links the App's install page, and keeps the link", async () => {
    const room = freshRoom();
    await setRepo(room, { repo: "acme/kept" });
    const line = "Duet's GitHub App cannot see acme/secret-plans: install it on acme (http://127.0.0.1:PORT/github-apps/duet-test/installations/new) with access to that repository, or check the name.";
    const res = await setRepo(room, { repo: "acme/secret-plans" });
    expect(res.status).toBe(404);
    const port = (text: string) => text.replace(/127\.0\.0\.1:\d+/, "127.0.0.1:PORT");
    expect([port(res.body.error), port(res.body.details.repo[0])]).toEqual([line, line]);
    expect(await repoOf(room)).toEqual(linked("acme/kept", null, "room"));
    expect((await audit(room)).map((e) => e.repo)).toEqual(["acme/kept"]);
  });

  it("refuses a repository GitHub has archived with a 409 saying it is read-only, and keeps the link", async () => {
    const room = freshRoom();
    await setRepo(room, { repo: "acme/kept" });
    const line = "acme/attic is archived on GitHub, so it is read-only and Duet could not push a branch to it: unarchive it, or link another repository";
    const res = await setRepo(room, { repo: "acme/attic" });
    expect(res.status).toBe(409);
    expect([res.body.error, res.body.details.repo[0]]).toEqual([line, line]);
    expect(await repoOf(room)).toEqual(linked("acme/kept", null, "room"));
    expect((await audit(room)).map((e) => e.repo)).toEqual(["acme/kept"]);
  });

  it("refuses a link without a person, and a method it does not serve", async () => {
    const room = freshRoom();
    const res = await api(`/api/rooms/${room}/repo`, { method: "PUT", json: { repo: "acme/widgets" } });
    expect(res.status).toBe(400);
    expect(((await res.json()) as any).details).toEqual({ userId: ["User id must be a string"] });
    expect((await api(`/api/rooms/${room}/repo`, { method: "POST", json: {} })).status).toBe(405);
  });
});
