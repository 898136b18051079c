import { describe, expect, it } from "vitest";
import { api, freshRoom, modelCallsWith, send } from "./helpers.ts";

const setModel = async (room: string, model: unknown, userId = "U1") => {
  const res = await api(`/api/rooms/${room}/model`, { method: "PUT", json: { model, userId } });
  return { status: res.status, body: (await res.json()) as any };
};
const getModel = async (room: string) => (await (await api(`/api/rooms/${room}/model`)).json()) as any;

describe("a model per room", () => {
  it("starts on the default, switches, and the next request names the new model; the switch is audited", async () => {
    const room = freshRoom();
    expect(await getModel(room)).toEqual({ model: "fake-model", source: "default", choices: ["fake-model", "fake-large"] });
    expect((await setModel(room, "fake-large")).body).toEqual({ model: "fake-large", source: "room", choices: ["fake-model", "fake-large"] });
    const marker = `switched-${room}`;
    expect((await send(room, `SAY: ok ${marker}`)).status).toBe(200);
    const [call] = (await modelCallsWith(marker)) as unknown as { model: string }[];
    expect(call.model).toBe("fake-large");
    const audit = (await (await api(`/api/rooms/${room}/audit`)).json()) as { entries: { kind: string; model?: string; requestedBy?: string }[] };
    expect(audit.entries).toContainEqual(expect.objectContaining({ kind: "model", model: "fake-large", requestedBy: "U1" }));
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
    expect(res.body.details.model[0]).toBe('Unknown model "gpt-9000"; choose one of: fake-model, fake-large');
    expect((await getModel(room)).model).toBe("fake-model");
  });
});
