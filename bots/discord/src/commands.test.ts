import { describe, expect, it } from "vitest";
import { duetCommand } from "./commands.ts";

describe("the /duet command definition", () => {
  it("has the twenty subcommands, text options required (a file, a model name, a repository and the tools words optional) and the policy's a choice, in servers only", () => {
    const duet = duetCommand().toJSON();
    expect(duet.name).toBe("duet");
    expect(duet.contexts).toEqual([0]);
    const subs = duet.options!.map((o) => o.name);
    // Written out: the list Discord shows people, not the table the builder read.
    expect(subs).toEqual(["ask", "get", "run", "history", "stop", "reset", "policy", "model", "repo", "pr", "tools", "usage", "audit", "schedule", "schedules", "unschedule", "remember", "memory", "forget", "help"]);
    for (const sub of duet.options! as { description: string; options?: { name: string; required?: boolean; max_length?: number }[] }[]) {
      expect(sub.description.length).toBeGreaterThan(0);
      expect(sub.description.length).toBeLessThanOrEqual(100);
      if ((sub as { name?: string }).name === "policy") continue;
      // The model's name is optional (without it, the current model is shown) and short.
      if ((sub as { name?: string }).name === "model") {
        expect(sub.options).toMatchObject([{ name: "name", required: false, max_length: 200 }]);
        continue;
      }
      // So is the repository (without it, the room's is shown), long enough for owner, name and branch at their limits.
      if ((sub as { name?: string }).name === "repo") {
        expect(sub.options).toMatchObject([{ name: "name", required: false, max_length: 400 }]);
        continue;
      }
      // So is a pull request's title (without it, Duet names it), with room past the Worker's 200 so a long one hears the rule.
      if ((sub as { name?: string }).name === "pr") {
        expect(sub.options).toMatchObject([{ name: "title", required: false, max_length: 1000 }]);
        continue;
      }
      // So are the tools words (without them, the servers are listed), as long as Discord takes: headers may hold long keys.
      if ((sub as { name?: string }).name === "tools") {
        expect(sub.options).toMatchObject([{ name: "what", required: false, max_length: 6000 }]);
        continue;
      }
      // A file is optional; a path, a schedule's when and id are short; every other text option takes Discord's most.
      for (const opt of sub.options ?? []) {
        if (opt.name === "file") expect(opt).toMatchObject({ required: false, type: 11 });
        else expect(opt).toMatchObject({ required: true, max_length: { path: 4096, when: 120, id: 32, fact: 500, number: 4 }[opt.name] ?? 6000 });
      }
    }
    const policy = (duet.options as { name: string; options?: { name: string; required?: boolean; choices?: { value: string }[] }[] }[]).find((o) => o.name === "policy")!;
    expect(policy.options).toMatchObject([{ name: "mode", required: false, choices: [{ value: "auto" }, { value: "approve" }] }]);
  });
});
