import { describe, expect, it } from "vitest";
import { parseArgs, UsageError } from "./args.ts";

const usageError = (argv: string[]) => {
  try {
    parseArgs(argv);
  } catch (err) {
    expect(err).toBeInstanceOf(UsageError);
    return (err as Error).message;
  }
  throw new Error(`parsed without an error: ${argv.join(" ")}`);
};

describe("parseArgs", () => {
  it("reads each subcommand with a bare room name", () => {
    expect(parseArgs(["ask", "demo", "how", "do", "I", "list", "files?"])).toEqual({ kind: "ask", room: "demo", text: "how do I list files?" });
    expect(parseArgs(["run", "demo", "echo hi"])).toEqual({ kind: "run", room: "demo", cmd: "echo hi" });
    expect(parseArgs(["history", "demo"])).toEqual({ kind: "history", room: "demo" });
    expect(parseArgs(["reset", "slack-T1-C2"])).toEqual({ kind: "reset", room: "slack-T1-C2" });
    expect(parseArgs(["chat", "my_room.1"])).toEqual({ kind: "chat", room: "my_room.1" });
    expect(parseArgs(["policy", "demo"])).toEqual({ kind: "policy", room: "demo" });
    expect(parseArgs(["policy", "demo", "Approve"])).toEqual({ kind: "policy", room: "demo", runPolicy: "approve" });
    expect(parseArgs(["model", "demo"])).toEqual({ kind: "model", room: "demo" });
    expect(parseArgs(["model", "demo", "fake-large"])).toEqual({ kind: "model", room: "demo", model: "fake-large" });
    expect(parseArgs(["usage", "demo"])).toEqual({ kind: "usage", room: "demo" });
    expect(parseArgs(["audit", "demo"])).toEqual({ kind: "audit", room: "demo" });
    expect(parseArgs(["schedule", "demo", "every weekday 09:00 Europe/Berlin", "summarise", "CI"])).toEqual({ kind: "schedule", room: "demo", when: "every weekday 09:00 Europe/Berlin", ask: "summarise CI" });
    expect(parseArgs(["schedules", "demo"])).toEqual({ kind: "schedules", room: "demo" });
    expect(parseArgs(["unschedule", "demo", "3F9A1C2B"])).toEqual({ kind: "unschedule", room: "demo", id: "3f9a1c2b" });
  });

  it("reads an unquoted WHEN as chat does", () => {
    expect(parseArgs(["schedule", "demo", "every", "30m", "check", "disk"])).toEqual({ kind: "schedule", room: "demo", when: "every 30m", ask: "check disk" });
    expect(parseArgs(["schedule", "demo", "every", "weekday", "09:00", "Europe/Berlin", "summarise", "CI"])).toMatchObject({ when: "every weekday 09:00 Europe/Berlin", ask: "summarise CI" });
  });

  it("names the terminal's own commands in a schedule's usage, never the chat's slash command", () => {
    const noWhen = usageError(["schedule", "demo", "bogus", "check"]);
    expect(noWhen).toContain('`duet schedule demo` needs when and what to ask, e.g. `duet schedule demo "every weekday 09:00 Europe/Berlin" "summarise yesterday\'s failed CI runs"`');
    expect(noWhen).not.toContain("/duet");
  });

  it("refuses a bad schedule before anything reaches the Worker", () => {
    expect(usageError(["schedule", "demo", "every 1h"])).toMatch(/takes a ROOM, WHEN \(quoted\) and what to ask/);
    expect(usageError(["schedule", "demo", "0 9 * * * Mars/Olympus", "report"])).toMatch(/Unknown time zone `Mars\/Olympus`/);
    expect(usageError(["schedule", "demo", "0 0 9 * * 1-5", "report"])).toMatch(/this one has 6/);
    expect(usageError(["unschedule", "demo"])).toMatch(/takes a ROOM and a schedule ID/);
    expect(usageError(["unschedule", "demo", "../x"])).toContain(`(got "../x")`);
  });

  it("joins a run command's words and keeps its quoting and inner --", () => {
    expect(parseArgs(["run", "demo", "ls", "-la", "/tmp"])).toEqual({ kind: "run", room: "demo", cmd: "ls -la /tmp" });
    expect(parseArgs(["run", "demo", "--", "git", "diff", "--", "a.txt"])).toEqual({ kind: "run", room: "demo", cmd: "git diff -- a.txt" });
    const quoted = `printf '%s\\n' "a b" | grep -c a`;
    expect(parseArgs(["run", "demo", quoted])).toEqual({ kind: "run", room: "demo", cmd: quoted });
  });

  it("drops the literal -- pnpm 12 passes before the arguments", () => {
    expect(parseArgs(["--", "history", "demo"])).toEqual({ kind: "history", room: "demo" });
  });

  it("answers help for --help, -h and help", () => {
    for (const flag of ["--help", "-h", "help"]) expect(parseArgs([flag])).toEqual({ kind: "help" });
  });

  it("explains each usage mistake in one sentence", () => {
    expect(usageError([])).toBe("duet needs a command");
    expect(usageError(["deploy", "demo"])).toBe('unknown command "deploy"');
    expect(usageError(["ask"])).toBe("duet ask needs a ROOM, e.g. duet ask demo");
    expect(usageError(["ask", "demo"])).toMatch(/^duet ask needs a question/);
    expect(usageError(["ask", "demo", "  "])).toMatch(/^duet ask needs a question/);
    expect(usageError(["run", "demo"])).toMatch(/^duet run needs a command/);
    expect(usageError(["run", "demo", "--"])).toMatch(/^duet run needs a command/);
    expect(usageError(["history", "demo", "extra"])).toBe('duet history takes only a ROOM (got "extra")');
    expect(usageError(["policy", "demo", "yolo"])).toBe('duet policy takes auto or approve (got "yolo")');
    expect(usageError(["policy", "demo", "auto", "approve"])).toBe('duet policy takes auto or approve (got "auto approve")');
    expect(usageError(["policy", "demo", "x".repeat(5000)])).toMatch(/^duet policy takes auto or approve \(got "x{40}"\)$/);
    expect(usageError(["policy"])).toBe("duet policy needs a ROOM, e.g. duet policy demo");
    expect(usageError(["model", "demo", "gpt", "4"])).toBe('duet model takes one model NAME (got "gpt 4")');
    expect(usageError(["usage", "demo", "today"])).toBe('duet usage takes only a ROOM (got "today")');
    expect(usageError(["audit", "demo", "--all"])).toBe('duet audit takes only a ROOM (got "--all")');
  });

  it("reads approve and skip with the id of a waiting command, and nothing else", () => {
    const id = "7f3c2a10-5b4e-4c1d-9e8f-0a1b2c3d4e5f";
    expect(parseArgs(["approve", "demo", id])).toEqual({ kind: "decide", room: "demo", approvalId: id, decision: "run" });
    expect(parseArgs(["skip", "demo", id.toUpperCase()])).toEqual({ kind: "decide", room: "demo", approvalId: id, decision: "skip" });
    expect(parseArgs(["approve", "demo", "2"])).toEqual({ kind: "decide", room: "demo", pick: 2, decision: "run" });
    const usage = /^duet (approve|skip) takes a ROOM and the number or ID of a waiting command, as `duet ask` lists it/;
    for (const bad of [[], [""], ["0"], ["1", "2"], ["../../x"], [id, id], [`${id}x`], ["x".repeat(5000)]]) {
      const said = usageError(["approve", "demo", ...bad]);
      expect(said, JSON.stringify(bad).slice(0, 40)).toMatch(usage);
      expect(said.length).toBeLessThan(160);
    }
    expect(usageError(["skip"])).toBe("duet skip needs a ROOM, e.g. duet skip demo");
  });

  it("refuses rooms the Worker would not accept or would route elsewhere", () => {
    expect(usageError(["run", "my room", "ls"])).toMatch(/not a valid room: use 1-200 characters/);
    expect(usageError(["run", "a/b", "ls"])).toMatch(/not a valid room/);
    expect(usageError(["history", "x".repeat(201)])).toMatch(/not a valid room/);
    expect(usageError(["history", ".."])).toBe('".." is not a valid room: a room cannot be only dots');
    expect(parseArgs(["history", "x".repeat(200)])).toMatchObject({ kind: "history" });
  });
});
