import { describe, expect, it } from "vitest";
import { contentTypeOf } from "./content-type.ts";
import { numberedName, safeFileName } from "./upload-name.ts";
import { checkWorkspacePath } from "./workspace-path.ts";

describe("checkWorkspacePath", () => {
  it("refuses absolute paths, '..' and control characters", () => {
    for (const bad of ["/etc/passwd", "../x", "a/../../x", "a/..", "a\u0000b", "a\nb", "tab\there", "del\u007f", "\\server\\x"]) {
      expect(checkWorkspacePath(bad).ok, JSON.stringify(bad)).toBe(false);
    }
  });
  it("cleans what it accepts", () => {
    expect(checkWorkspacePath("./a//b/./c.txt/")).toEqual({ ok: true, path: "a/b/c.txt" });
    expect(checkWorkspacePath("")).toEqual({ ok: true, path: "" });
    expect(checkWorkspacePath("..a/b..")).toEqual({ ok: true, path: "..a/b.." });
  });
});

describe("safeFileName", () => {
  it("makes separators, dots-only names and control characters safe", () => {
    expect(safeFileName("../../etc/passwd")).toBe(".._.._etc_passwd");
    expect(safeFileName("..")).toBe("file");
    expect(safeFileName("")).toBe("file");
    expect(safeFileName("a\\b\u0007c.txt")).toBe("a_bc.txt");
    expect(safeFileName("report\n.csv")).toBe("report.csv");
  });
  it("drops bidirectional overrides and zero-width characters, so a name cannot pose as another", () => {
    // U+202E turns what follows around on screen: "invoice\u202Efdp.exe" reads as "invoiceexe.pdf".
    expect(safeFileName("invoice\u202Efdp.exe")).toBe("invoicefdp.exe");
    expect(safeFileName("\u2066re\u200Bport\u2069.csv\uFEFF")).toBe("report.csv");
    expect(safeFileName("a\u200D\u200C\u2060b\u00AD.txt")).toBe("ab.txt");
    expect(safeFileName("\u200B\u202E")).toBe("file");
  });
  it("cuts a long name to 255 bytes, keeping the extension and whole characters", () => {
    const cut = safeFileName(`${"é".repeat(200)}.csv`);
    expect(new TextEncoder().encode(cut).byteLength).toBeLessThanOrEqual(255);
    expect(cut.endsWith("é.csv")).toBe(true);
  });
  it("numbers a taken name before its extension", () => {
    expect(numberedName("data.csv", 1)).toBe("data-1.csv");
    expect(numberedName("Makefile", 2)).toBe("Makefile-2");
    expect(new TextEncoder().encode(numberedName("x".repeat(255), 12)).byteLength).toBe(255);
  });
});

describe("contentTypeOf", () => {
  it("knows images and text by name, anything else is bytes", () => {
    expect(contentTypeOf("out/chart.PNG")).toBe("image/png");
    expect(contentTypeOf("data.csv")).toBe("text/csv; charset=utf-8");
    expect(contentTypeOf("blob")).toBe("application/octet-stream");
  });
});
