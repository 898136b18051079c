import { generateKeyPairSync, verify } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DuetError } from "@duet/shared";
import { importAppKey } from "../worker/src/github/app-jwt.ts";
import { InstallationTokens, TOKEN_REFRESH_MARGIN_MS } from "../worker/src/github/installation-tokens.ts";
import { installLink } from "../worker/src/github/repo-access.ts";
import { startFakeGithub, type FakeGithub } from "./fakes/github.ts";

/**
 * The Worker's GitHub App credentials (worker/src/github/), pure WebCrypto,
 * against a fake GitHub that checks the App's JWT with its public key.
 */

const APP_ID = "123456";
const { privateKey, publicKey } = generateKeyPairSync("rsa", { modulusLength: 2048 });
const PKCS8 = privateKey.export({ type: "pkcs8", format: "pem" }).toString();
/** The form GitHub hands out when an App's key is generated. */
const PKCS1 = privateKey.export({ type: "pkcs1", format: "pem" }).toString();

const decode = (part: string) => JSON.parse(Buffer.from(part, "base64url").toString("utf8"));

let clock = Date.parse("2026-12-04T12:00:00Z");
let github: FakeGithub;

beforeAll(async () => {
  github = await startFakeGithub({ appId: APP_ID, publicKey, now: () => clock });
  github.addRepo({ fullName: "acme/widgets", installationId: 77 });
  github.addRepo({ fullName: "acme/gadgets", installationId: 77 });
});
afterAll(() => github?.close());

const tokens = (privateKeyPem = PKCS8) => new InstallationTokens({ appId: APP_ID, privateKey: privateKeyPem, apiUrl: github.url, now: () => clock });

describe("the GitHub App's JWT", () => {
  for (const [form, pem] of [
    ["PKCS#8", PKCS8],
    ["PKCS#1 (as GitHub issues it)", PKCS1],
    ["PKCS#1 on one line with literal \\n", PKCS1.replace(/\n/g, "\\n")],
  ] as const) {
    it(`from a ${form} key verifies with the App's public key and claims the App, issued a minute back, for at most 10 minutes`, async () => {
      const jwt = await tokens(pem).appJwt();
      const [header, claims, signature] = jwt.split(".");
      expect(verify("sha256", Buffer.from(`${header}.${claims}`), publicKey, Buffer.from(signature, "base64url"))).toBe(true);
      expect(decode(header)).toEqual({ alg: "RS256", typ: "JWT" });
      const nowS = Math.floor(clock / 1000);
      expect(decode(claims)).toEqual({ iss: APP_ID, iat: nowS - 60, exp: nowS - 60 + 600 });
    });
  }

  it("refuses a key that is not a PEM private key with one line naming the variable", async () => {
    await expect(importAppKey("not a key")).rejects.toThrow('GITHUB_APP_PRIVATE_KEY must be a PEM private key ("BEGIN PRIVATE KEY" or "BEGIN RSA PRIVATE KEY")');
    await expect(importAppKey("-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----")).rejects.toThrow("GITHUB_APP_PRIVATE_KEY could not be read as an RSA private key");
  });
});

describe("installation tokens", () => {
  it("are asked for one repository and the step's permissions, and the token works on that repository only", async () => {
    const before = github.tokenRequests.length;
    const app = tokens();
    const { token, expiresAt } = await app.token(77, "widgets", { pull_requests: "write", contents: "write" });
    expect(github.tokenRequests.slice(before)).toEqual([{ installationId: 77, repositories: ["widgets"], permissions: { contents: "write", pull_requests: "write" } }]);
    expect(expiresAt).toBe(clock + 60 * 60 * 1000);
    const seen = (repo: string) => fetch(`${github.url}/repos/acme/${repo}`, { headers: { authorization: `token ${token}` } }).then((r) => r.status);
    expect(await seen("widgets")).toBe(200);
    expect(await seen("gadgets")).toBe(404);
  });

  it("are kept per installation, repository and permissions until 5 minutes before they expire, then minted anew", async () => {
    const app = tokens();
    const start = github.tokenRequests.length;
    const first = await app.token(77, "gadgets", { contents: "read" });
    // Asked at once, twice more: one request.
    const [again, together] = await Promise.all([app.token(77, "gadgets", { contents: "read" }), app.token(77, "gadgets", { contents: "read" })]);
    expect([again.token, together.token]).toEqual([first.token, first.token]);
    // Other permissions or another repository are other tokens.
    expect((await app.token(77, "gadgets", { contents: "write" })).token).not.toBe(first.token);
    expect((await app.token(77, "widgets", { contents: "read" })).token).not.toBe(first.token);
    expect(github.tokenRequests.length - start).toBe(3);

    clock = first.expiresAt - TOKEN_REFRESH_MARGIN_MS - 1;
    expect((await app.token(77, "gadgets", { contents: "read" })).token).toBe(first.token);
    clock += 1;
    const renewed = await app.token(77, "gadgets", { contents: "read" });
    expect(renewed.token).not.toBe(first.token);
    expect(renewed.expiresAt).toBe(clock + 60 * 60 * 1000);
    expect(github.tokenRequests.length - start).toBe(4);
  });

  it("a 403 with retry-after becomes a retryable github_error with the wait, and is not kept", async () => {
    const app = tokens();
    github.limitNext(42);
    const err = (await app.token(77, "widgets", { metadata: "read" }).catch((e: unknown) => e)) as DuetError;
    expect(err).toBeInstanceOf(DuetError);
    expect(err.toBody()).toEqual({
      error: "GitHub is limiting requests (while minting an installation token); try again in 42 s",
      code: "github_error",
      retryable: true,
      retryAfterMs: 42_000,
    });
    expect(err.status).toBe(503);
    expect((await app.token(77, "widgets", { metadata: "read" })).token).toMatch(/^ghs_fake/);
  });

  it("a token request for a repository the installation cannot see, or with another App's key, is refused and not retryable", async () => {
    const missing = (await tokens().token(77, "secret-plans", { contents: "read" }).catch((e: unknown) => e)) as DuetError;
    expect([missing.code, missing.retryable, missing.message]).toEqual([
      "github_error",
      false,
      "GitHub answered HTTP 422 while minting an installation token: There is at least one repository that does not exist or is not accessible to the parent installation.",
    ]);
    const otherKey = generateKeyPairSync("rsa", { modulusLength: 2048 }).privateKey.export({ type: "pkcs8", format: "pem" }).toString();
    const refused = (await tokens(otherKey).token(77, "widgets", { contents: "read" }).catch((e: unknown) => e)) as DuetError;
    expect([refused.code, refused.retryable]).toEqual(["github_error", false]);
    expect(refused.message).toBe(
      "GitHub refused the App's credentials while minting an installation token (check GITHUB_APP_ID and GITHUB_APP_PRIVATE_KEY): signature does not match",
    );
  });
});

describe("the App's install link", () => {
  it("is github.com's /apps page, a GitHub Enterprise Server's /github-apps page, and none without a slug", () => {
    const app = { appId: APP_ID, privateKey: PKCS8 };
    expect(installLink({ ...app, slug: "duet", apiUrl: "https://api.github.com" })).toBe("https://github.com/apps/duet/installations/new");
    expect(installLink({ ...app, slug: "duet", apiUrl: "https://ghe.example/api/v3" })).toBe("https://ghe.example/github-apps/duet/installations/new");
    expect(installLink({ ...app, apiUrl: "https://api.github.com" })).toBeNull();
  });
});
