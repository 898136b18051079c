import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { askedMessageSchema } from "../wire/asked-schemas.ts";
import { plainHttpUrl } from "../wire/http-url.ts";
import { limitBytes, TooManyBytes } from "./byte-limit.ts";
import { fetchFromSource, isAllowedSource, SourceError, type SourceHosts } from "./source.ts";

/** Two servers on 127.0.0.1: the platform's (allowed by origin) and another (never allowed). */
function serve(handle: (url: string, res: import("node:http").ServerResponse) => void, seen: { url: string; headers: IncomingHttpHeaders }[]) {
  const server = createServer((req, res) => {
    seen.push({ url: req.url ?? "", headers: req.headers });
    handle(req.url ?? "", res);
  });
  return new Promise<{ server: Server; origin: string }>((resolve) => server.listen(0, "127.0.0.1", () => resolve({ server, origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}` })));
}

let platform: { server: Server; origin: string };
let elsewhere: { server: Server; origin: string };
const platformSeen: { url: string; headers: IncomingHttpHeaders }[] = [];
const elsewhereSeen: { url: string; headers: IncomingHttpHeaders }[] = [];
let src: SourceHosts;

beforeAll(async () => {
  elsewhere = await serve((_url, res) => res.end("elsewhere"), elsewhereSeen);
  platform = await serve((url, res) => {
    if (url === "/away") return res.writeHead(302, { location: `${elsewhere.origin}/stolen` }).end();
    if (url === "/hop") return res.writeHead(302, { location: "/file" }).end();
    if (url === "/gone") return res.writeHead(404).end();
    res.end("the-bytes");
  }, platformSeen);
  src = { platform: "Test", hosts: [".slack.com", "cdn.discordapp.com"], origins: [platform.origin] };
});
afterAll(() => {
  platform.server.close();
  elsewhere.server.close();
});

const auth = { authorization: "Bearer xoxb-secret" };

describe("fetchFromSource", () => {
  it("fetches from an allowed origin and follows a redirect that stays there, token and all", async () => {
    const res = await fetchFromSource(`${platform.origin}/hop`, src, auth);
    expect(await res.text()).toBe("the-bytes");
    expect(platformSeen.at(-1)).toMatchObject({ url: "/file", headers: { authorization: "Bearer xoxb-secret" } });
  });

  it("refuses a redirect off the platform's hosts without sending anything there", async () => {
    const err = await fetchFromSource(`${platform.origin}/away`, src, auth).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(SourceError);
    expect((err as SourceError).problem).toBe("off_host");
    expect(elsewhereSeen).toEqual([]);
  });

  it("never requests a URL that starts off the platform's hosts", async () => {
    await expect(fetchFromSource(`${elsewhere.origin}/x`, src, auth)).rejects.toMatchObject({ problem: "off_host" });
    expect(elsewhereSeen).toEqual([]);
  });

  it("calls a refused or missing file unavailable", async () => {
    await expect(fetchFromSource(`${platform.origin}/gone`, src)).rejects.toMatchObject({ problem: "unavailable" });
  });
});

describe("isAllowedSource", () => {
  it("takes the platform's https hosts only, never http, another port or a look-alike", () => {
    const ok = (u: string) => isAllowedSource(new URL(u), src);
    expect(ok("https://files.slack.com/files-pri/T1-F1/download/a.csv")).toBe(true);
    expect(ok("https://cdn.discordapp.com/attachments/1/2/a.csv")).toBe(true);
    expect(ok("http://files.slack.com/a")).toBe(false);
    expect(ok("https://files.slack.com:8443/a")).toBe(false);
    expect(ok("https://files.slack.com.evil.example/a")).toBe(false);
    expect(ok("https://evilslack.com/a")).toBe(false);
    expect(ok("https://user:pw@files.slack.com/a")).toBe(false);
    expect(ok("https://media.cdn.discordapp.com.evil/a")).toBe(false);
  });
});

describe("a shared file's URL, checked once for the room that keeps it and the bot that fetches it", () => {
  /** Why the room would not keep `url` as a file of an asked message; null when it would. */
  const keptProblem = (url: string) => {
    const parsed = askedMessageSchema.safeParse({ author: "A", text: "t", attachments: [{ name: "a.csv", size: 1, url }] });
    return parsed.success ? null : parsed.error.issues.map((i) => i.message).join("; ");
  };
  /** What fetching `url` from the platform with its token came to: the problem, or "fetched". */
  const fetched = async (url: string) => {
    const before = platformSeen.length + elsewhereSeen.length;
    const outcome = await fetchFromSource(url, src, auth).then(
      (res) => (void res.body?.cancel(), "fetched"),
      (err: unknown) => (err instanceof SourceError ? err.problem : String(err)),
    );
    // Nothing refused was ever sent anywhere.
    if (outcome !== "fetched") expect(platformSeen.length + elsewhereSeen.length).toBe(before);
    return outcome;
  };

  const NOT_PLAIN = "Each file's URL must be an http(s) URL without credentials";
  const hostile = {
    "not a URL": ["", "cdn.discordapp.com/a", "//files.slack.com/a", "https://", "http://[::1/a"],
    "another scheme": ["file:///etc/passwd", "javascript:alert(1)", "data:text/plain,hi", "ftp://files.slack.com/a", "ws://files.slack.com/a"],
    credentials: ["https://user@files.slack.com/a", "https://user:pw@files.slack.com/a", "https://:pw@files.slack.com/a"],
  };
  /** Plain http(s) URLs the room keeps: which hosts a file may be on is the bot's call, at each fetch. */
  const oddHosts = ["https://files.slack.com.evil.example/a", "https://0x7f.1/a", "https://files.slack.com./a", "http://files.slack.com/a"];

  it.each(Object.entries(hostile).flatMap(([why, urls]) => urls.map((url) => [why, url])))("%s (%j): not kept, never fetched", async (_why, url) => {
    expect(plainHttpUrl(url)).toBeNull();
    expect(keptProblem(url)).toBe(NOT_PLAIN);
    expect(await fetched(url)).toBe("off_host");
  });

  it("credentials on an allowed origin: not kept, never fetched", async () => {
    const url = `${platform.origin.replace("http://", "http://user:pw@")}/file`;
    expect(plainHttpUrl(url)).toBeNull();
    expect(keptProblem(url)).toBe(NOT_PLAIN);
    expect(await fetched(url)).toBe("off_host");
  });

  it.each(oddHosts)("an odd host (%j): kept as it is, never fetched", async (url) => {
    expect(plainHttpUrl(url)?.href).toBe(new URL(url).href);
    expect(keptProblem(url)).toBeNull();
    expect(await fetched(url)).toBe("off_host");
  });

  it("a file on the platform's origin is kept and fetched", async () => {
    expect(keptProblem(`${platform.origin}/file`)).toBeNull();
    expect(await fetched(`${platform.origin}/file`)).toBe("fetched");
  });
});

describe("limitBytes", () => {
  it("passes a stream within the limit and fails one past it", async () => {
    const chunks = (n: number) => new Response(new Uint8Array(n)).body!;
    expect((await new Response(limitBytes(chunks(10), 10)).arrayBuffer()).byteLength).toBe(10);
    let told = false;
    await expect(new Response(limitBytes(chunks(11), 10, () => (told = true))).arrayBuffer()).rejects.toBeInstanceOf(TooManyBytes);
    expect(told).toBe(true);
  });

  it("holds each chunk until the next arrives, so the last one within the limit never goes on when more follow", async () => {
    const parts = [new Uint8Array(6), new Uint8Array(6), new Uint8Array(6)];
    const body = new ReadableStream<Uint8Array>({ pull: (c) => void (parts.length ? c.enqueue(parts.shift()!) : c.close()) });
    const reader = limitBytes(body, 12).getReader();
    expect((await reader.read()).value?.byteLength).toBe(6);
    // The second chunk is within the limit, but the third shows the whole is not: it never arrives.
    await expect(reader.read()).rejects.toBeInstanceOf(TooManyBytes);
  });
});
