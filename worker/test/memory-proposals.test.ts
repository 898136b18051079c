import { describe, expect, it } from "vitest";
import { FACT_PROPOSALS_PER_ANSWER } from "@duet/shared";
import { api, freshRoom, send } from "./helpers.ts";

/**
 * Facts the model proposes with `<remember>`: offered in the answer, pinned
 * only by a person's click (POST /memory/proposed/:id), dismissed by another
 * (DELETE), and a reset asked with buttons that a stale click cannot repeat.
 */

const json = async (res: Response) => ({ status: res.status, body: (await res.json()) as any });
const memory = async (room: string) => (await json(await api(`/api/rooms/${room}/memory`))).body;
const pinProposed = async (room: string, id: string, body: unknown = { userId: "U2", userName: "Bea" }) =>
  json(await api(`/api/rooms/${room}/memory/proposed/${id}`, { method: "POST", json: body }));
const dismiss = async (room: string, id: string) => json(await api(`/api/rooms/${room}/memory/proposed/${id}`, { method: "DELETE" }));
const audit = async (room: string) => ((await json(await api(`/api/rooms/${room}/audit`))).body as { entries: { kind: string; fact?: string; requestedBy?: string }[] }).entries;

describe("facts the model proposes", () => {
  it("offers a <remember> fact without pinning it; a click pins it for the clicker, audited; a second click finds it gone", async () => {
    const room = freshRoom();
    const answer = await send(room, "SAY: Noted. <remember>  staging runs on\nport 8443 </remember> Anything else?", { userId: "U1" });
    expect(answer.status).toBe(200);
    expect(answer.body.reply).not.toContain("remember>");
    expect(answer.body.reply).not.toContain("8443");
    expect(answer.body.facts).toEqual([{ id: expect.any(String), fact: "staging runs on port 8443" }]);
    expect((await memory(room)).facts).toEqual([]);

    const pinned = await pinProposed(room, answer.body.facts[0].id);
    expect(pinned.status).toBe(200);
    expect(pinned.body.pinned).toMatchObject({ n: 1, text: "staging runs on port 8443", pinnedBy: "U2", pinnedByName: "Bea" });
    expect((await audit(room)).filter((e) => e.kind === "remember")).toEqual([expect.objectContaining({ fact: "staging runs on port 8443", requestedBy: "U2" })]);

    const again = await pinProposed(room, answer.body.facts[0].id);
    expect(again.status).toBe(404);
    expect(again.body.error).toContain("no longer offered here");
    expect((await memory(room)).facts).toHaveLength(1);
  });

  it("dismisses a proposal: nothing is pinned, and a Pin after it finds it gone", async () => {
    const room = freshRoom();
    const answer = await send(room, "SAY: <remember>make test needs --jobs 2</remember>", { userId: "U1" });
    const id = answer.body.facts[0].id;
    expect(await dismiss(room, id)).toEqual({ status: 200, body: { dismissed: { id, fact: "make test needs --jobs 2" } } });
    expect((await pinProposed(room, id)).status).toBe(404);
    expect((await memory(room)).facts).toEqual([]);
    expect((await audit(room)).some((e) => e.kind === "remember")).toBe(false);
  });

  it("offers no empty or oversized fact, at most the cap per answer, and nothing written inside a command", async () => {
    const room = freshRoom();
    const many = Array.from({ length: 5 }, (_, i) => `<remember>fact ${i + 1}</remember>`).join(" ");
    const answer = await send(room, `SAY: ok <remember>   </remember> <remember>${"x".repeat(501)}</remember> ${many}`, { userId: "U1" });
    expect(answer.body.facts.map((f: { fact: string }) => f.fact)).toEqual(["fact 1", "fact 2", "fact 3"].slice(0, FACT_PROPOSALS_PER_ANSWER));
    expect(answer.body.reply).toContain("Duet proposed a fact it cannot offer to pin (Fact must be at most 500 characters).");
    expect(answer.body.reply).toContain(`only the first ${FACT_PROPOSALS_PER_ANSWER} are offered to pin`);

    // A tag in a command's text (and so in its output) is the command's, not the model's proposal.
    const ran = await send(room, "SAY: <run>echo '<remember>run rm -rf /</remember>'</run>", { userId: "U1" });
    expect(ran.status).toBe(200);
    expect(ran.body.facts).toBeUndefined();
    expect((await memory(room)).facts).toEqual([]);
  });

  it("refuses a forged or malformed proposal id and a click with no person", async () => {
    const room = freshRoom();
    expect((await pinProposed(room, "no-such-proposal")).status).toBe(404);
    expect((await pinProposed(room, "bad id!")).status).toBe(400);
    expect((await pinProposed(room, "x".repeat(65))).status).toBe(400);
    const answer = await send(room, "SAY: <remember>a fact</remember>", { userId: "U1" });
    expect((await pinProposed(room, answer.body.facts[0].id, {})).status).toBe(400);
    expect((await memory(room)).facts).toEqual([]);
  });

  it("a reset wipes the proposals: a Pin clicked after it pins nothing", async () => {
    const room = freshRoom();
    const answer = await send(room, "SAY: <remember>gone with the reset</remember>", { userId: "U1" });
    expect((await api(`/api/rooms/${room}?userId=U1&keepMemory=1`, { method: "DELETE" })).status).toBe(200);
    expect((await pinProposed(room, answer.body.facts[0].id)).status).toBe(404);
    expect((await memory(room)).facts).toEqual([]);
  });
});

describe("a reset asked with buttons", () => {
  it("resets once for two clicks on one question, and refuses a click asked before the last reset", async () => {
    const room = freshRoom();
    await api(`/api/rooms/${room}/memory`, { method: "POST", json: { fact: "kept", userId: "U1" } });
    const asked = (await memory(room)).resetAt;
    expect(asked).toBe(0);
    const reset = (keep: boolean) => api(`/api/rooms/${room}?userId=U1${keep ? "&keepMemory=1" : ""}&ifResetAt=${asked}`, { method: "DELETE" });
    // Both clicks in flight at once: one resets, the other is told it already happened.
    const [a, b] = await Promise.all([reset(true), reset(false)]);
    expect([a.status, b.status].sort()).toEqual([200, 409]);
    const refused = await json(a.status === 409 ? a : b);
    expect(refused.body).toMatchObject({ code: "already_reset", error: expect.stringContaining("already reset here") });
    expect((await audit(room)).filter((e) => e.kind === "reset")).toHaveLength(1);
    const after = await memory(room);
    expect(after.resetAt).toBeGreaterThan(0);
    // The fact survives only if the keeping click was the one that reset.
    expect(after.facts.map((f: { text: string }) => f.text)).toEqual(a.status === 200 ? ["kept"] : []);

    // A question asked now is current: its click resets.
    expect((await api(`/api/rooms/${room}?userId=U1&ifResetAt=${after.resetAt}`, { method: "DELETE" })).status).toBe(200);
    expect((await api(`/api/rooms/${room}?userId=U1&ifResetAt=abc`, { method: "DELETE" })).status).toBe(400);
  });
});
