import { describe, expect, it } from "vitest";
import { Span, type SpanData } from "../trace/span.ts";
import type { ChatSurface } from "./surface.ts";
import { tracedSurface } from "./traced.ts";

/**
 * What a delivery looks like in a turn's trace: each post, edit and upload the
 * flow makes on a surface is its own span under the ask, failed with the
 * error's name (never its text) when the platform throws.
 */

function recording(opts: { uploadFails?: boolean } = {}) {
  const spans: SpanData[] = [];
  const did: string[] = [];
  const surface: ChatSurface = {
    post: async () => (did.push("post"), { id: "1" }),
    edit: async () => (did.push("edit"), true),
    postPrivate: async () => (did.push("private"), { id: "p" }),
    showProgress: () => async () => {},
    files: {
      platform: "Test",
      maxBytes: 1_000,
      send: async () => {
        did.push("upload");
        if (opts.uploadFails) throw new TypeError("upload refused for token xoxb-secret-text");
        return true;
      },
    },
  };
  const ask = new Span((s) => spans.push(s), "duet.ask", null);
  return { spans, did, ask, surface: tracedSurface(surface, ask) };
}

describe("a traced surface", () => {
  it("makes each post, edit and upload a client span under the ask, in its trace, and still does it", async () => {
    const { spans, did, ask, surface } = recording();
    await surface.post({ kind: "hint", text: "hi" });
    await surface.edit({ id: "1" }, { kind: "hint", text: "hi again" });
    await surface.files!.send([{ path: "out/chart.png", name: "chart.png", bytes: 3, type: "image/png", open: async () => new Blob(["png"]).stream() }], "the chart");
    ask.end();
    expect(did).toEqual(["post", "edit", "upload"]);
    const [askData] = spans.filter((s) => s.name === "duet.ask");
    expect(spans.filter((s) => s !== askData).map((s) => [s.name, s.kind, s.parentSpanId, s.traceId])).toEqual([
      ["chat.post", "client", askData.spanId, askData.traceId],
      ["chat.edit", "client", askData.spanId, askData.traceId],
      ["chat.upload", "client", askData.spanId, askData.traceId],
    ]);
    expect(surface.files).toMatchObject({ platform: "Test", maxBytes: 1_000 });
  });

  it("fails an upload's span with the error's name, never its text, and lets the error through", async () => {
    const { spans, surface } = recording({ uploadFails: true });
    await expect(surface.files!.send([], "nothing")).rejects.toThrow("upload refused");
    const [upload] = spans.filter((s) => s.name === "chat.upload");
    expect(upload.error).toBe("TypeError");
    expect(JSON.stringify(spans)).not.toContain("xoxb-secret-text");
  });
});
