import { format } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { deliverWebhook, payloads } from "./fakes/github-webhooks.ts";
import { startPrHost, type PrHost } from "./helpers/pr-host.ts";
import { startStack, type Stack } from "./helpers/stack.ts";
import { workerApi } from "./helpers/worker-api.ts";

/**
 * The Worker never logs a GitHub credential: everything the local Worker
 * (wrangler and workerd, at the log level that shows the Worker's own
 * console lines and every request) prints across a link, a sync, a push and
 * a pull request, and a review comment answered on that pull request, holds
 * none of the installation tokens the fake GitHub minted and none of the App
 * JWTs it was shown.
 */

const SECRET = "whsec-logs-0123456789";

let host: PrHost;
let stack: Stack;
/** Everything printed in this process while the Worker ran: wrangler prints the Worker's console and workerd's output here. */
const printed: string[] = [];
const undo: (() => void)[] = [];

/** Records what goes to `stream` from now on, and still writes it. */
function tap(stream: NodeJS.WriteStream): void {
  const write = stream.write.bind(stream);
  stream.write = ((chunk: string | Uint8Array, ...rest: unknown[]) => {
    printed.push(typeof chunk === "string" ? chunk : Buffer.from(chunk).toString());
    return (write as (...args: unknown[]) => boolean)(chunk, ...rest);
  }) as typeof stream.write;
  undo.push(() => (stream.write = write as typeof stream.write));
}

beforeAll(async () => {
  for (const stream of [process.stdout, process.stderr]) tap(stream);
  // The test runner puts its own console in place; wrangler's logger writes through it.
  for (const method of ["log", "info", "warn", "error", "debug"] as const) {
    const original = console[method];
    console[method] = (...args: unknown[]) => {
      printed.push(format(...args));
      original.apply(console, args);
    };
    undo.push(() => (console[method] = original));
  }
  const level = process.env.DUET_TEST_WORKER_LOG;
  process.env.DUET_TEST_WORKER_LOG = "1";
  try {
    host = await startPrHost();
    stack = await startStack({ executor: "real", vars: { ...host.vars, GITHUB_WEBHOOK_SECRET: SECRET, MODEL_TIMEOUT_MS: "30000" } });
  } finally {
    if (level === undefined) delete process.env.DUET_TEST_WORKER_LOG;
    else process.env.DUET_TEST_WORKER_LOG = level;
  }
}, 120_000);

afterAll(async () => {
  await stack?.stop();
  await host?.stop();
  for (const restore of undo.splice(0)) restore();
});

const api = workerApi(() => stack);

describe("the Worker's log output across a repository's whole path", () => {
  it("link, sync, a refused link, push and pull request, a review comment answered on it: no installation token and no App JWT is printed", async () => {
    const room = "cli-token-logs";
    expect((await api("PUT", `/api/rooms/${room}/repo`, { repo: "acme/widgets", userId: "U1" })).status).toBe(200);
    expect((await api("POST", `/api/rooms/${room}/repo/sync`)).status).toBe(200);
    // A branch that is not there: refused after looking with a token in hand.
    expect((await api("PUT", `/api/rooms/cli-token-logs-missing/repo`, { repo: "acme/widgets@no-such-branch", userId: "U1" })).status).toBe(400);

    await stack.client.exec(room, { cmd: "cd ~/repo && echo logged >> src/a.txt" });
    const proposal = await api("POST", `/api/rooms/${room}/repo/pr`, { userId: "U1", title: "Quiet logs" });
    expect(proposal.status).toBe(200);
    const opened = await api("POST", `/api/rooms/${room}/repo/pr/${proposal.body.id}/open`, { userId: "U1" });
    expect(opened.status, JSON.stringify(opened.body)).toBe(200);
    expect(host.github.pushes()).toBeGreaterThan(0);
    const number = opened.body.number as number;

    stack.model.answer("why quiet", "Because logs are read by many.");
    const comment = await deliverWebhook(`${stack.workerUrl}/github/webhook`, SECRET, "pull_request_review_comment", payloads.reviewComment("acme/widgets", number, 41, "mona", "@duet-test why quiet?"));
    expect(comment.status).toBe(202);
    await expect.poll(() => host.github.comments.some((c) => c.number === number && c.body.includes("Because logs are read by many.")), { timeout: 30_000 }).toBe(true);

    const output = printed.join("");
    // The capture is live: wrangler printed the requests of this test.
    expect(output).toContain(`/api/rooms/${room}/repo/pr/${proposal.body.id}/open`);
    expect(host.github.minted.length).toBeGreaterThan(0);
    expect(host.github.jwts.length).toBeGreaterThan(0);
    for (const token of host.github.minted) expect(output, "an installation token was printed").not.toContain(token);
    for (const jwt of host.github.jwts) {
      expect(output, "an App JWT was printed").not.toContain(jwt);
      // Its signature alone is as much of a secret as the whole.
      expect(output, "an App JWT's signature was printed").not.toContain(jwt.split(".")[2]);
    }
  });
});
