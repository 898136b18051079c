import { describe, expect, it } from "vitest";
import { isPrivateHost, serverUrlOf } from "./tool-input.ts";

describe("a tool server's address", () => {
  it("refuses loopback, private, link-local and dotless hosts and plain http unless private addresses are allowed", () => {
    const refused = [
      "https://127.0.0.1/mcp",
      "https://localhost:8080/mcp",
      "https://10.1.2.3/mcp",
      "https://172.20.0.1/mcp",
      "https://192.168.1.1/mcp",
      "https://169.254.169.254/latest",
      "https://100.64.0.1/",
      "https://0.0.0.0/",
      "https://[::1]/mcp",
      "https://[fd00::1]/mcp",
      "https://[fe80::1]/mcp",
      "https://[::ffff:127.0.0.1]/mcp",
      "https://intranet/mcp",
      "https://db.internal/mcp",
      "http://mcp.example.com/mcp",
    ];
    for (const url of refused) {
      expect(() => serverUrlOf(url, false), url).toThrow("invalid request");
      expect(() => serverUrlOf(url, true), url).not.toThrow();
    }
    expect(serverUrlOf("https://mcp.example.com/mcp#frag", false)).toBe("https://mcp.example.com/mcp");
    expect(isPrivateHost("8.8.8.8")).toBe(false);
    expect(isPrivateHost("[2606:4700::1111]")).toBe(false);
  });

  it("refuses what is no http(s) address, or carries credentials, even where private addresses are allowed", () => {
    for (const url of ["", "not a url", "file:///etc/passwd", "javascript:alert(1)", "https://user:pw@mcp.example.com/"]) {
      expect(() => serverUrlOf(url, true), url).toThrow("invalid request");
    }
  });
});
