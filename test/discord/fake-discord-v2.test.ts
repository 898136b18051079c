import { describe, expect, it } from "vitest";
import { startedForTests } from "../helpers/lifecycle.ts";
import { type BotCall, startFakeWithChannel } from "./fake-setup.ts";
import { shownButtons, shownText, type FakeDiscord } from "../fakes/discord/index.ts";

/**
 * What the fake Discord checks of Components V2 messages (the IS_COMPONENTS_V2
 * flag), as Discord's API does: no content or embeds beside them, 40
 * components and 4,000 characters of text at most, 10 children a container,
 * known types only, V2 types only with the flag, a flag an edit cannot take
 * away (and gives only with the content cleared); and what a V2 message shows.
 */

const V2 = 1 << 15;
const text = (content: string) => ({ type: 10, content });
const row = (...ids: string[]) => ({ type: 1, components: ids.map((id) => ({ type: 2, style: 2, label: id, custom_id: id })) });
const container = (...components: unknown[]) => ({ type: 17, components });

describe("the fake Discord's Components V2 messages", () => {
  let fake: FakeDiscord;
  let channel: string;
  let api: BotCall;
  startedForTests(startFakeWithChannel, (s) => ({ fake, channel, api } = s));
  const post = (json: unknown) => api(`/channels/${channel}/messages`, "POST", json);
  /** The field and code of a 400 in Discord's form-error shape. */
  const refusal = (res: { status: number; body: any }) => {
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ code: 50035, message: "Invalid Form Body" });
    const [field] = Object.keys(res.body.errors);
    return `${field} ${res.body.errors[field]._errors[0].code}`;
  };

  it("posts a container of text and buttons, and keeps what it shows: its text displays and its buttons", async () => {
    const res = await post({ flags: V2, components: [container(text("Hello"), { type: 14, divider: true, spacing: 1 }, text("✅ `$ ls` · exit 0"), row("duet-stop:x"))] });
    expect(res.status).toBe(200);
    const msg = fake.world.messages.get(res.body.id)!;
    expect(shownText(msg)).toBe("Hello\n✅ `$ ls` · exit 0");
    expect(shownButtons(msg)).toEqual(["duet-stop:x"]);
    expect(msg.content).toBe("");
  });

  it("refuses content or embeds beside the flag", async () => {
    expect(refusal(await post({ flags: V2, content: "hi", components: [container(text("a"))] }))).toBe("content MESSAGE_CANNOT_USE_LEGACY_FIELDS_WITH_COMPONENTS_V2");
    expect(refusal(await post({ flags: V2, embeds: [{ description: "x" }], components: [container(text("a"))] }))).toBe("embeds MESSAGE_CANNOT_USE_LEGACY_FIELDS_WITH_COMPONENTS_V2");
  });

  it("refuses more than 40 components, more than 4,000 characters of text, and more than 10 children in a container", async () => {
    // 1 container + 8 rows of 4 buttons (40) + 1 text = 42 components, 10 children.
    const rows = Array.from({ length: 8 }, (_, r) => row(...Array.from({ length: 4 }, (_, b) => `b${r}-${b}`)));
    expect(refusal(await post({ flags: V2, components: [container(text("a"), ...rows)] }))).toBe("components BASE_TYPE_MAX_LENGTH");
    expect(refusal(await post({ flags: V2, components: [container(text("a".repeat(2500)), text("b".repeat(1501)))] }))).toBe("components BASE_TYPE_MAX_LENGTH");
    expect((await post({ flags: V2, components: [container(text("a".repeat(2500)), text("b".repeat(1500)))] })).status).toBe(200);
    expect(refusal(await post({ flags: V2, components: [container(...Array.from({ length: 11 }, (_, i) => text(`t${i}`)))] }))).toBe("components BASE_TYPE_BAD_LENGTH");
  });

  it("refuses unknown component types, V2 types without the flag, and a file that shows no attachment", async () => {
    expect(refusal(await post({ flags: V2, components: [{ type: 99, content: "x" }] }))).toBe("components UNION_TYPE_CHOICES");
    expect(refusal(await post({ flags: V2, components: [container(container(text("nested")))] }))).toBe("components UNION_TYPE_CHOICES");
    expect(refusal(await post({ components: [container(text("no flag"))] }))).toBe("components UNION_TYPE_CHOICES");
    expect(refusal(await post({ flags: V2, components: [container(text("f"), { type: 13, file: { url: "attachment://missing.txt" } })] }))).toBe("components UNFURLED_MEDIA_ITEM_ATTACHMENT_NOT_FOUND");
  });

  it("keeps the flag through edits: never removed, given only with the content cleared", async () => {
    const v2 = (await post({ flags: V2, components: [container(text("v2"))] })).body.id;
    expect(refusal(await api(`/channels/${channel}/messages/${v2}`, "PATCH", { flags: 0, content: "back to classic", components: [] }))).toBe("flags MESSAGE_CANNOT_REMOVE_COMPONENTS_V2_FLAG");
    // An edit without flags stays V2, and is checked as V2.
    expect(refusal(await api(`/channels/${channel}/messages/${v2}`, "PATCH", { content: "text" }))).toBe("content MESSAGE_CANNOT_USE_LEGACY_FIELDS_WITH_COMPONENTS_V2");
    expect((await api(`/channels/${channel}/messages/${v2}`, "PATCH", { components: [container(text("v2, edited"))] })).status).toBe(200);
    expect(shownText(fake.world.messages.get(v2)!)).toBe("v2, edited");

    const classic = (await post({ content: "classic" })).body.id;
    expect(refusal(await api(`/channels/${channel}/messages/${classic}`, "PATCH", { flags: V2, components: [container(text("up"))] }))).toBe("content MESSAGE_CANNOT_USE_LEGACY_FIELDS_WITH_COMPONENTS_V2");
    expect((await api(`/channels/${channel}/messages/${classic}`, "PATCH", { flags: V2, content: null, components: [container(text("up"))] })).status).toBe(200);
    expect(fake.world.messages.get(classic)).toMatchObject({ content: "", flags: V2 });
    expect(fake.edits.at(-1)).toMatchObject({ messageId: classic, content: "up" });
  });
});
