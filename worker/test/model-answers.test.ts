import { describe, expect, it } from "vitest";
import { modelAnswers } from "./fixtures/model-answers/index.ts";
import { execCalls, freshRoom, send } from "./helpers.ts";

// Every answer shape in the corpus, written by the (fake) model and read by the real
// Worker: what people see and what ran in the sandbox. Fixtures with their own cap
// are read with it in the reader's unit tests; the Worker's cap here is 5.
describe("model answers through the Worker", () => {
  for (const f of modelAnswers.filter((a) => a.max === undefined)) {
    it(f.name, async () => {
      const room = freshRoom("answers");
      const { status, body } = await send(room, `SAY: ${f.text}`);
      expect(status).toBe(200);
      expect(body.explanation).toBe(f.explanation);
      expect(body.runs.map((r: { cmd: string }) => r.cmd)).toEqual(f.commands);
      expect((await execCalls(`sandbox-${room}`)).map((c) => c.command)).toEqual(f.commands);
      expect(body.reply).not.toMatch(/<\/?run>/i);
    });
  }
});
