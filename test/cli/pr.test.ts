import { PassThrough } from "node:stream";
import { describe, expect, it, onTestFinished } from "vitest";
import { runCli } from "../../scripts/duet-cli.ts";
import { startedForTests } from "../helpers/lifecycle.ts";
import { startPrHost, type PrHost } from "../helpers/pr-host.ts";
import { startStack, type Stack } from "../helpers/stack.ts";
import { startWorkerTap } from "../helpers/worker-tap.ts";

/**
 * `duet pr` through the CLI's entry point against the real Worker and
 * bubblewrap executor, the fake GitHub and a real git host. The person at
 * the terminal is known to git by name and address, so the pull request and
 * its commit credit them with a Co-authored-by trailer.
 */

let stack: Stack;
let host: PrHost;

startedForTests(
  async () => {
    const prHost = await startPrHost();
    const started = await startStack({ executor: "real", vars: { ...prHost.vars, MODEL_TIMEOUT_MS: "30000" } }).catch(async (err) => {
      await prHost.stop();
      throw err;
    });
    return { stack: started, host: prHost, stop: async () => (await started.stop(), await prHost.stop()) };
  },
  (s) => ({ stack, host } = s),
);

function duet(...argv: string[]): Promise<{ code: number; out: string; err: string }> {
  return duetVia(stack.workerUrl, argv);
}

/** The CLI run with `argv`, reaching the Worker at `workerUrl`. */
async function duetVia(workerUrl: string, argv: string[]): Promise<{ code: number; out: string; err: string }> {
  const out = new PassThrough();
  const err = new PassThrough();
  const chunks = { out: "", err: "" };
  out.on("data", (d) => (chunks.out += d));
  err.on("data", (d) => (chunks.err += d));
  const env = {
    DUET_WORKER_URL: workerUrl,
    DUET_API_TOKEN: stack.token,
    NO_COLOR: "1",
    DUET_STREAMING: "off",
    DUET_HOME: host.repos.root,
    GIT_AUTHOR_NAME: "Ada Lovelace",
    GIT_AUTHOR_EMAIL: "ada@example.com",
  };
  const code = await runCli(argv, { env, stdin: new PassThrough(), stdout: out, stderr: err });
  return { code, out: chunks.out.trimEnd(), err: chunks.err.trimEnd() };
}

describe("duet pr", () => {
  it("proposes the model's change, opens it with the asker's name and address credited, and the branch holds exactly the change", async () => {
    const room = "cli-pr-flow";
    const none = await duet("pr", room);
    expect(none).toEqual({ code: 1, out: `No repository is linked here, so there is no change to propose; \`duet repo ${room} owner/name\` links one.`, err: "" });
    expect((await duet("repo", room, "acme/widgets")).code).toBe(0);
    expect((await duet("ask", room, "SAY: changing it <run>cd ~/repo && echo omega > src/o.txt</run>")).code).toBe(0);

    const proposed = await duet("pr", room, "Add", "omega");
    expect(proposed.code).toBe(0);
    const lines = proposed.out.split("\n");
    expect(lines[0]).toMatch(/^cli:\S+ proposes a pull request to `acme\/widgets` \(`main`\): `Add omega`$/);
    expect(lines[1]).toMatch(/^Branch `duet\/add-omega-[0-9a-f]{6}` · 1 file changed, 1 insertion\(\+\)$/);
    expect(proposed.out).toContain("  +omega");
    const [, id] = /Open it: duet pr cli-pr-flow --open ([0-9a-f]{8}) · drop it: duet pr cli-pr-flow --skip \1$/.exec(proposed.out)!;
    const branch = /duet\/add-omega-[0-9a-f]{6}/.exec(lines[1])![0];

    const opened = await duet("pr", room, "--open", id);
    const pull = host.github.pulls.find((p) => p.head === branch)!;
    expect(opened.code).toBe(0);
    expect(opened.out).toMatch(new RegExp(`^cli:\\S+ opened pull request #${pull.number} from \`${branch}\`: ${pull.html_url}$`));
    expect(pull.body).toMatch(/asked for by Ada Lovelace \(cli:\S+\)/);
    expect(pull.body).toContain("Co-authored-by: Ada Lovelace <ada@example.com>");
    expect(host.hostGit("log", "-1", "--format=%an%n%B", branch)).toMatch(/^Duet\nAdd omega\n\nAsked for by Ada Lovelace \(cli:\S+\)\.\n\nCo-authored-by: Ada Lovelace <ada@example.com>$/);
    expect(host.hostGit("diff", "--name-only", "main", branch)).toBe("src/o.txt");
    expect(host.hostGit("show", `${branch}:src/o.txt`)).toBe("omega");

    // Opened again: one pull request, who opened it and where it is.
    expect(await duet("pr", room, "--open", id)).toEqual({ code: 0, out: `${opened.out}\nThis change is already opened: ${pull.html_url}`, err: "" });
    expect(host.github.pulls.filter((p) => p.head === branch)).toHaveLength(1);
  });

  it("bad input is a usage line before any call; an unknown or skipped proposal and no change are one line each", async () => {
    const room = "cli-pr-bad";
    expect(await duet("pr", room, "t".repeat(201))).toEqual({ code: 2, out: "", err: "duet pr: That title is 201 characters; a pull request's title is at most 200.\nRun `duet --help` for the commands." });
    expect((await duet("pr", room, "--open")).code).toBe(2);
    expect((await duet("pr", room, "--open", "../x")).err).toContain("duet pr --open takes the proposal's ID");
    expect((await duet("pr", room, "--force")).code).toBe(2);

    await duet("repo", room, "acme/widgets");
    await duet("ask", room, "SAY: looking <run>true</run>");
    expect(await duet("pr", room)).toEqual({ code: 0, out: `Nothing changed in repo/ since main at ${host.mainTip.slice(0, 7)}: there is no pull request to open.`, err: "" });
    await duet("ask", room, "SAY: changing it <run>cd ~/repo && echo psi > src/p.txt</run>");
    const proposed = await duet("pr", room);
    const id = /--skip ([0-9a-f]{8})$/.exec(proposed.out)![1];
    expect((await duet("pr", room, "--open", "0badc0de")).code).toBe(1);
    expect(await duet("pr", room, "--skip", id)).toEqual({ code: 0, out: "Skipped by " + (await whoami()) + ": nothing was pushed.", err: "" });
    expect(await duet("pr", room, "--open", id)).toEqual({ code: 1, out: "This change was skipped, so it was not opened: propose it again.", err: "" });
  });
});

describe("duet repo sync", () => {
  it("checks the linked branch out at repo/ now and says the commit to the room, then fetches the branch's next commit into it; with nothing linked it says so and runs nothing; each sync is one Worker call", async () => {
    const room = "cli-repo-sync";
    const tap = await startWorkerTap(stack.workerUrl);
    onTestFinished(() => tap.close());
    /** What `duet repo ROOM sync` said and asked of the Worker about the room. */
    const sync = async (word = "sync") => {
      const from = tap.calls.length;
      const said = await duetVia(tap.url, ["repo", room, word]);
      return { ...said, calls: tap.calls.slice(from).filter((c) => c.path.startsWith(`/api/rooms/${room}/`)).map((c) => `${c.method} ${c.path.split("/").slice(4).join("/")}`) };
    };
    expect(await sync()).toEqual({
      code: 1,
      out: "",
      err: "No repository is linked here, so there is nothing to sync: link one with the repo command first, e.g. `acme/widgets` or `acme/widgets@main`.",
      calls: ["POST repo/sync"],
    });
    expect((await stack.client.audit(room)).entries).toEqual([]);

    const first = await host.repos.commit("acme/widgets", [{ "src/s.txt": "one\n" }], "synced", "main");
    expect((await duet("repo", room, "acme/widgets@synced")).code).toBe(0);
    const head = async () => (await stack.client.exec(room, { cmd: "git -C ~/repo rev-parse HEAD" })).result.stdout.trim();
    const synced = await sync("Sync");
    expect(synced).toMatchObject({ code: 0, calls: ["POST repo/sync"] });
    expect(synced.out).toMatch(new RegExp(`^cli:\\S+ synced \`acme/widgets\`, branch \`synced\`: repo/ is at \`${first.slice(0, 12)}\`\\.$`));
    expect(await head()).toBe(first);

    const next = await host.repos.commit("acme/widgets", [{ "src/s.txt": "two\n" }], "synced");
    expect((await duet("repo", room, "sync")).out).toContain(`repo/ is at \`${next.slice(0, 12)}\``);
    expect(await head()).toBe(next);
    expect((await stack.client.exec(room, { cmd: "cat ~/repo/src/s.txt" })).result.stdout).toBe("two\n");
  });
});

async function whoami(): Promise<string> {
  const { userInfo } = await import("node:os");
  return `cli:${userInfo().username}`;
}
