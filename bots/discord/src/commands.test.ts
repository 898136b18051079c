import { describe, expect, it } from "vitest";
import { commandDefinitions } from "./commands.ts";

describe("the /duet command definition", () => {
  it("has the ten subcommands, text options required and the policy's a choice, in servers only", () => {
    const [duet] = commandDefinitions();
    expect(duet.name).toBe("duet");
    expect(duet.contexts).toEqual([0]);
    const subs = duet.options!.map((o) => o.name);
    // Written out: the list Discord shows people, not the table the builder read.
    expect(subs).toEqual(["ask", "run", "history", "stop", "reset", "policy", "model", "usage", "audit", "help"]);
    for (const sub of duet.options! as { description: string; options?: { name: string; required?: boolean; max_length?: number }[] }[]) {
      expect(sub.description.length).toBeGreaterThan(0);
      expect(sub.description.length).toBeLessThanOrEqual(100);
      if ((sub as { name?: string }).name === "policy") continue;
      // The model's name is optional (without it, the current model is shown) and short.
      if ((sub as { name?: string }).name === "model") {
        expect(sub.options).toMatchObject([{ name: "name", required: false, max_length: 200 }]);
        continue;
      }
      for (const opt of sub.options ?? []) expect(opt).toMatchObject({ required: true, max_length: 6000 });
    }
    const policy = (duet.options as { name: string; options?: { name: string; required?: boolean; choices?: { value: string }[] }[] }[]).find((o) => o.name === "policy")!;
    expect(policy.options).toMatchObject([{ name: "mode", required: false, choices: [{ value: "auto" }, { value: "approve" }] }]);
  });
});
