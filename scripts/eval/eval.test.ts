import { spawn } from "node:child_process";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { quietPort } from "../../test/helpers/ports.ts";
import { REPO_ROOT } from "../dev-env.ts";
import { startFakeModel, type FakeModel } from "../../test/fakes/model.ts";
import { runEval } from "./main.ts";

// pnpm eval end to end: a real Worker and the bubblewrap sandbox, with the fake model
// answering the scenarios the way real models do, good and bad.
describe("pnpm eval against the fake model", () => {
  let model: FakeModel;
  beforeAll(async () => {
    model = await startFakeModel();
    model.answer("Create three empty files", "<run>touch a.txt b.txt c.txt</run>");
    model.answer("What files are in", "Here they are:\n<run>ls</run>\n```\na.txt\n```");
    model.answer("How much disk space", "Run this:\n```bash\ndu -sh .\n```");
    model.answer("Create a file named hello.txt", "I'll write it with <run>echo 'hello duet' > hello.txt</run> and show it:\n<run>$ cat hello.txt</run>");
    model.answer("Write the text 'ship on friday'", "<run>echo 'ship on friday' > plan.txt</run>");
    model.answer("Show me what the file you just wrote says", "<run>cat plan.txt</run>");
    model.answer("what does the -h flag of df do", "It prints sizes in human-readable units such as 1.5G.");
    model.answer("I'm deploying the billing service", "Noted, good luck with the deploy.");
    model.answer("Which of my teammates said", "Ada said she is deploying the billing service at 3pm today.");
  });
  afterAll(() => model.close());

  it("prints each scenario and a table of what the model did", async () => {
    const lines: string[] = [];
    const rows = await runEval({ MODEL_PROVIDER: "openai", OPENAI_BASE_URL: model.baseUrl, MODEL: "fake-model" }, (l) => lines.push(l));
    const out = lines.join("\n");
    expect(out).toContain("== create and show a file");
    expect(out).toContain("ran:    cat hello.txt  -> exit 0");
    expect(out).toContain("answer: I'll write it with `echo 'hello duet' > hello.txt` and show it:");
    expect(out).toContain("tags:   no (untagged-block)");
    const table = out.slice(out.indexOf("scenario "));
    expect(table.split("\n").map((l) => l.replace(/\s+/g, " ").trim())).toEqual([
      "scenario tags ran shape result",
      "list files yes 1 tags pass",
      "disk usage no 0 untagged-block FAIL: wrote the command in a code block without tags: nothing ran",
      "create and show a file yes 2 tags pass",
      "follow-up yes 1 tags pass",
      "two people no 0 no-command pass",
      "no command needed no 0 no-command pass",
      "5/6 scenarios passed",
    ]);
    expect(rows.map((r) => r.score.pass)).toEqual([true, false, true, true, true, true]);
    // The question reached the model under its asker's name, after the teammate's words under hers.
    const asked = model.calls.find((c) => c.messages.at(-1)?.content.includes("Which of my teammates said"))!;
    const people = asked.messages.filter((m) => m.role === "user").map((m) => m.content.split("\n")[0]);
    expect(people.slice(-2)).toEqual(['[from "Ada"]', '[from "Bob"]']);
  });

  it("refuses a provider the local Worker cannot use, and a missing endpoint, in one line", async () => {
    await expect(runEval({ MODEL_PROVIDER: "workers-ai" }, () => {})).rejects.toThrow(/only MODEL_PROVIDER=openai works/);
    await expect(runEval({ MODEL_PROVIDER: "openai" }, () => {})).rejects.toThrow(/set OPENAI_BASE_URL/);
  });

  it("stops before any scenario, in one line naming the URL, when the model cannot be reached", async () => {
    // A port nothing listens on.
    const unreachable = `http://127.0.0.1:${await quietPort()}/v1`;
    const child = spawn(join(REPO_ROOT, "node_modules", ".bin", "tsx"), ["scripts/eval/main.ts"], {
      cwd: REPO_ROOT,
      env: { PATH: process.env.PATH, HOME: process.env.HOME, MODEL_PROVIDER: "openai", OPENAI_BASE_URL: unreachable },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let out = "";
    child.stdout.on("data", (d) => (out += d));
    child.stderr.on("data", (d) => (out += d));
    const code = await new Promise<number | null>((resolve) => child.on("exit", resolve));
    expect(code).toBe(2);
    expect(out.trim().split("\n")).toEqual([`pnpm eval: the model at ${unreachable} cannot be reached (ECONNREFUSED): is it running, and is OPENAI_BASE_URL right?`]);
  });
});
