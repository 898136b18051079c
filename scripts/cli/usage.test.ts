import { PassThrough } from "node:stream";
import { describe, expect, it } from "vitest";
import { quietPort } from "../../test/helpers/ports.ts";
import { runCli } from "../duet-cli.ts";

/** What a person sees from `duet` when the command line is wrong or the Worker is not there (no Worker needed). */
async function duet(argv: string[], opts: { url?: string; input?: string[] } = {}) {
  const chunks = { out: "", err: "" };
  const out = new PassThrough().on("data", (d) => (chunks.out += d));
  const err = new PassThrough().on("data", (d) => (chunks.err += d));
  const env = { DUET_WORKER_URL: opts.url ?? "http://127.0.0.1:9", DUET_API_TOKEN: "t", NO_COLOR: "1", DUET_STREAMING: "off" };
  const stdin = new PassThrough();
  stdin.end((opts.input ?? []).map((l) => `${l}\n`).join(""));
  const code = await runCli(argv, { env, stdin, stdout: out, stderr: err, onInterrupt: () => () => {} });
  return { code, ...chunks };
}

describe("duet usage errors", () => {
  it("are one line with one prefix and a pointer to --help, not the whole usage", async () => {
    const run = await duet(["run", "demo"]);
    expect(run).toEqual({ code: 2, out: "", err: "duet run needs a command, e.g. duet run demo 'ls -la'\nRun `duet --help` for the commands.\n" });
    const room = await duet(["history", "bad room"]);
    expect(room.err).toBe('duet: "bad room" is not a valid room: use 1-200 characters from A-Z a-z 0-9 . _ -\nRun `duet --help` for the commands.\n');
  });

  it("offer the command a typo was close to", async () => {
    expect((await duet(["histroy", "demo"])).err).toBe('duet: unknown command "histroy"; did you mean `duet history`?\nRun `duet --help` for the commands.\n');
    expect((await duet(["frobnicate", "demo"])).err).toBe('duet: unknown command "frobnicate"\nRun `duet --help` for the commands.\n');
  });

  it("--help after a command shows the usage instead of naming a room --help", async () => {
    const help = await duet(["history", "--help"]);
    expect(help.code).toBe(0);
    expect(help.out).toMatch(/^Usage: duet <command> ROOM/);
  });
});

describe("duet chat against a Worker that is not running", () => {
  it("exits non-zero when its lines failed", async () => {
    const chat = await duet(["chat", "demo"], { url: `http://127.0.0.1:${await quietPort()}`, input: ["hello", "!ls"] });
    expect(chat.err).toContain("Duet's back end can't be reached");
    expect(chat.code).toBe(1);
  });
});
