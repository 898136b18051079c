import { describe, expect, it } from "vitest";
import { McpError, rpcMessages, rpcResult, SseParser } from "./mcp-rpc.ts";

describe("server-sent events as they arrive", () => {
  it("are read whole whether their lines end in CRLF, LF or CR, however the text is split into chunks", () => {
    const text = "event: endpoint\r\ndata: /messages?sessionId=1\r\n\r\n: a comment\n\nevent: message\ndata: {\"a\":1}\ndata: 2\r\rdata:" + "x".repeat(50) + "\r\n\r\nevent: empty\n\n";
    const expected = [
      { event: "endpoint", data: "/messages?sessionId=1" },
      { event: "message", data: '{"a":1}\n2' },
      { event: "message", data: "x".repeat(50) },
    ];
    for (const size of [1, 2, 3, 5, 16, text.length]) {
      const parser = new SseParser();
      const events = [];
      for (let at = 0; at < text.length; at += size) events.push(...parser.push(text.slice(at, at + size)));
      expect({ size, events }).toEqual({ size, events: expected });
    }
  });
});

describe("a JSON-RPC answer", () => {
  it("is found by its id among other messages; malformed, or an error, it is one clear line", () => {
    expect(rpcResult(rpcMessages('[{"jsonrpc":"2.0","method":"notifications/progress"},{"jsonrpc":"2.0","id":2,"result":{"ok":true}}]'), 2)).toEqual({ result: { ok: true } });
    expect(rpcResult(rpcMessages('{"jsonrpc":"2.0","id":1,"result":{}}'), 2)).toBeUndefined();
    expect(() => rpcMessages("not json {")).toThrow(new McpError("it answered something that is not JSON-RPC"));
    expect(() => rpcResult(rpcMessages('{"id":2,"result":{}}'), 2)).toThrow(new McpError("it answered something that is not JSON-RPC"));
    expect(() => rpcResult(rpcMessages('{"jsonrpc":"2.0","id":2}'), 2)).toThrow(new McpError("it answered something that is not JSON-RPC"));
    expect(() => rpcResult(rpcMessages(`{"jsonrpc":"2.0","id":2,"error":{"code":-32601,"message":"${"m".repeat(400)}"}}`), 2)).toThrow(new McpError(`it answered an error: ${"m".repeat(300)}`));
  });
});
