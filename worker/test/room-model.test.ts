import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { api, freshRoom, modelCallsWith, send } from "./helpers.ts";

const CHOICES = ["fake-model", "fake-large", "edge", "priced"];

/** The calls the stand-in Workers AI binding got (worker/test/fixtures/fake-workers-ai.js) whose last message holds `marker`. */
function workersAiCallsWith(marker: string): { model: string }[] {
  const ai = (env as unknown as { AI: { calls(): { model: string; messages: { content: string }[] }[] } }).AI;
  return ai.calls().filter((c) => c.messages[c.messages.length - 1]?.content.includes(marker));
}

const setModel = async (room: string, model: unknown, userId = "U1") => {
  const res = await api(`/api/rooms/${room}/model`, { method: "PUT", json: { model, userId } });
  return { status: res.status, body: (await res.json()) as any };
};
const getModel = async (room: string) => (await (await api(`/api/rooms/${room}/model`)).json()) as any;

describe("a model per room", () => {
  it("starts on the default, switches, and the next request names the new model; the switch is audited", async () => {
    const room = freshRoom();
    expect(await getModel(room)).toEqual({ model: "fake-model", source: "default", choices: CHOICES });
    expect((await setModel(room, "fake-large")).body).toEqual({ model: "fake-large", source: "room", choices: CHOICES });
    const marker = `switched-${room}`;
    expect((await send(room, `SAY: ok ${marker}`)).status).toBe(200);
    const [call] = (await modelCallsWith(marker)) as unknown as { model: string }[];
    expect(call.model).toBe("fake-large");
    const audit = (await (await api(`/api/rooms/${room}/audit`)).json()) as { entries: { kind: string; model?: string; requestedBy?: string }[] };
    expect(audit.entries).toContainEqual(expect.objectContaining({ kind: "model", model: "fake-large", requestedBy: "U1" }));
  });

  it("switching between models of two providers sends the next request to the chosen one's provider, under its own name", async () => {
    const room = freshRoom();
    expect((await setModel(room, "edge")).body).toMatchObject({ model: "edge", source: "room" });
    const onEdge = `edge-${room}`;
    const answered = await send(room, `SAY: ok ${onEdge}`, { userId: "U1" });
    expect(answered.body.reply).toBe("answered by Workers AI @cf/test/edge-model");
    expect(workersAiCallsWith(onEdge).map((c) => c.model)).toEqual(["@cf/test/edge-model"]);
    expect(await modelCallsWith(onEdge)).toHaveLength(0);

    await setModel(room, "fake-large");
    const onOpenAi = `openai-${room}`;
    expect((await send(room, `SAY: ok ${onOpenAi}`, { userId: "U1" })).body.reply).toBe(`ok ${onOpenAi}`);
    expect(((await modelCallsWith(onOpenAi)) as unknown as { model: string }[]).map((c) => c.model)).toEqual(["fake-large"]);
    expect(workersAiCallsWith(onOpenAi)).toHaveLength(0);

    // Usage is counted under the name people chose, with each provider's own figures.
    const usage = (await (await api(`/api/rooms/${room}/usage`)).json()) as { days: { rows: { model: string; inputTokens: number | null }[] }[] };
    expect(usage.days[0].rows.find((r) => r.model === "edge")).toMatchObject({ inputTokens: 21 });
    expect(usage.days[0].rows.find((r) => r.model === "fake-large")?.inputTokens).toEqual(expect.any(Number));
  });

  it("a thread room follows its channel's model until it sets its own", async () => {
    const channel = `slack-${freshRoom("T").replace(/-/g, "")}-C1`;
    const thread = `${channel}-1700000000.000100`;
    expect((await send(thread, "SAY: registered")).status).toBe(200);
    await setModel(channel, "fake-large");
    expect(await getModel(thread)).toMatchObject({ model: "fake-large", source: "channel" });
    await setModel(thread, "fake-model");
    expect(await getModel(thread)).toMatchObject({ model: "fake-model", source: "room" });
  });

  it("refuses an unknown name with a 400 that lists the choices, and keeps the model", async () => {
    const room = freshRoom();
    const res = await setModel(room, "gpt-9000");
    expect(res.status).toBe(400);
    expect(res.body.details.model[0]).toBe('Unknown model "gpt-9000"; choose one of: fake-model, fake-large, edge, priced');
    expect((await getModel(room)).model).toBe("fake-model");
  });
});
