import { createHmac } from "node:crypto";
import { describe, expect, it } from "vitest";
import { mentions, readEvent } from "../worker/src/github/webhook-events.ts";
import { signatureMatches } from "../worker/src/github/webhook-signature.ts";
import { payloads } from "./fakes/github-webhooks.ts";

/** The webhook's pure parts, each with what it must refuse: the signature check and the reading of payloads. */

const bytes = (s: string) => new TextEncoder().encode(s);
const sign = (secret: string, body: string) => `sha256=${createHmac("sha256", secret).update(body).digest("hex")}`;

describe("signatureMatches", () => {
  it("accepts GitHub's signature of the exact body and nothing else", async () => {
    const body = '{"action":"closed"}';
    expect(await signatureMatches("s3cret", bytes(body), sign("s3cret", body))).toBe(true);
    // Upper-case hex is the same signature.
    expect(await signatureMatches("s3cret", bytes(body), sign("s3cret", body).toUpperCase().replace("SHA256=", "sha256="))).toBe(true);
    for (const header of [sign("other", body), sign("s3cret", `${body} `), sign("s3cret", body).slice(0, -2), `${sign("s3cret", body)}00`, sign("s3cret", body).replace("sha256=", "sha1="), "", null, undefined, "sha256=", `sha256=${"zz".repeat(32)}`]) {
      expect(await signatureMatches("s3cret", bytes(body), header), String(header)).toBe(false);
    }
  });
});

describe("mentions", () => {
  it("finds @slug as a whole name, in any case, and not as part of another name or address", () => {
    for (const text of ["@duet-test fix this", "hey @duet-test, why?", "(@DUET-TEST)", "line one\n@duet-test"]) expect(mentions(text, "duet-test"), text).toBe(true);
    for (const text of ["@duet-tester", "@duet-test-other", "mail me@duet-test", "duet-test", "`x`@duet-test_x", "https://x/@duet-test"]) expect(mentions(text, "duet-test"), text).toBe(false);
  });
});

describe("readEvent", () => {
  const slug = "duet-test";
  it("reads a merge, a close, a review comment and a conversation comment", () => {
    expect(readEvent("pull_request", payloads.closed("acme/w", 3, true, "octocat"), slug)).toEqual({ event: { kind: "closed", repo: "acme/w", number: 3, merged: true, by: "octocat", url: "https://github.example/acme/w/pull/3" } });
    expect(readEvent("pull_request", payloads.closed("acme/w", 3, false, "hubot"), slug)).toMatchObject({ event: { merged: false, by: "hubot" } });
    expect(readEvent("pull_request_review_comment", payloads.reviewComment("acme/w", 3, 9, "mona", "@duet-test why?"), slug)).toEqual({
      event: { kind: "comment", repo: "acme/w", number: 3, commentId: 9, author: "mona", body: "@duet-test why?", url: "https://github.example/acme/w/pull/3#discussion_r9", path: "src/a.txt", line: 2 },
    });
    expect(readEvent("issue_comment", payloads.issueComment("acme/w", 3, 10, "mona", "@duet-test hi"), slug)).toMatchObject({ event: { kind: "comment", commentId: 10 } });
  });

  it("ignores, with the reason, comments by the App, without a mention, on issues, other actions, and payloads of the wrong shape", () => {
    expect(readEvent("issue_comment", payloads.issueComment("acme/w", 3, 10, "duet-test[bot]", "@duet-test hi"), slug)).toEqual({ ignored: "a comment by the App itself" });
    expect(readEvent("issue_comment", payloads.issueComment("acme/w", 3, 10, "mona", "hi"), slug)).toEqual({ ignored: "the comment does not mention @duet-test" });
    expect(readEvent("issue_comment", payloads.issueComment("acme/w", 3, 10, "mona", "@duet-test hi"), undefined)).toEqual({ ignored: "GITHUB_APP_SLUG is not set, so no comment can mention the App" });
    const onIssue = { ...payloads.issueComment("acme/w", 3, 10, "mona", "@duet-test hi"), issue: { number: 3 } };
    expect(readEvent("issue_comment", onIssue, slug)).toEqual({ ignored: "a comment on an issue, not on a pull request" });
    expect(readEvent("issue_comment", { ...payloads.issueComment("acme/w", 3, 10, "mona", "@duet-test hi"), action: "edited" }, slug)).toEqual({ ignored: "issue_comment edited is not acted on" });
    expect(readEvent("pull_request", { ...payloads.closed("acme/w", 3, true, "x"), action: "reopened" }, slug)).toEqual({ ignored: "pull_request reopened is not acted on" });
    for (const hostile of [{ action: "closed" }, { action: "closed", pull_request: { number: -1 }, repository: { full_name: "acme/w" } }, { action: "closed", pull_request: { number: 2 }, repository: { full_name: "../../x/y" } }]) {
      expect(readEvent("pull_request", hostile, slug)).toEqual({ ignored: "the payload names no repository and pull request" });
    }
    // A login that is not one is shown as "someone"; a link that is not http(s) is dropped.
    const odd = readEvent("pull_request", { ...payloads.closed("acme/w", 3, true, "x"), pull_request: { number: 3, merged: true, merged_by: { login: "<!channel>" }, html_url: "javascript:alert(1)" } }, slug);
    expect(odd).toMatchObject({ event: { by: "someone", url: "" } });
  });
});
