import { describe, expect, it } from "vitest";
import { ModelTextReader } from "./reader.ts";

/** Reads `text` in pieces of `size` characters, as a stream hands it over. */
function read(text: string, size = 3) {
  const reader = new ModelTextReader(5);
  let shown = "";
  for (let i = 0; i < text.length; i += size) for (const e of reader.push(text.slice(i, i + size))) if (e.type === "text") shown += e.delta;
  const end = reader.finish();
  for (const e of end.events) if (e.type === "text") shown += e.delta;
  return { shown, pr: end.reply.pr, commands: end.reply.commands };
}

describe("the model's <pr> tag", () => {
  it("asks for a proposal with its title, read leniently (any case, split across pieces, on one line), and shows nothing", () => {
    const r = read("Done. <run>echo hi > a.txt</run>\n<PR>  Add a\nfriendly\tgreeting\u0007 </Pr>");
    expect(r.pr).toBe("Add a friendly greeting");
    expect(r.commands).toEqual(["echo hi > a.txt"]);
    expect(r.shown).not.toMatch(/<\/?pr>|greeting/i);
  });

  it("an empty tag asks for Duet's own title; none, or one cut off, asks for nothing; the last one wins; a long title is cut to 200", () => {
    expect(read("Done <pr></pr>").pr).toBe("");
    expect(read("Just words.").pr).toBeNull();
    expect(read("Done <pr>Half a ti").pr).toBeNull();
    expect(read("<pr>first</pr> then <pr>second</pr>").pr).toBe("second");
    expect(read(`<pr>${"x".repeat(300)}</pr>`).pr).toHaveLength(200);
  });
});
