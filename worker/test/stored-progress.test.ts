import { runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { execCalls, freshRoom, killRoom, roomStub, send, until } from "./helpers.ts";
import { stop, stream, unique } from "./live-helpers.ts";

const TOKEN = "xoxb-1234567890-0987654321-AbCdEfGhIjKlMnOp";

/** The room's turns still running, as their rows hold them in SQLite. */
function pendingRows(room: string) {
  return runInDurableObject(roomStub(room), (_agent, state) =>
    state.storage.sql.exec<{ question: string; progress: string | null }>(`SELECT question, progress FROM duet_ledger WHERE status = 'pending'`).toArray(),
  );
}

describe("a turn's stored progress", () => {
  it("holds no secret the model wrote, while the turn runs", async () => {
    const room = freshRoom();
    const slow = `sleep 30 # ${unique("progress")}`;
    // The model writes the token itself (the question holds only its base64).
    const live = await stream(room, `SAY64: ${btoa(`The bot token is ${TOKEN}. Waiting: <run>${slow}</run>`)}`);
    // The progress is stored before the command starts, and the command holds the turn there.
    expect((await live.until("run-start")).data.cmd).toBe(slow);
    const rows = await pendingRows(room);
    expect(rows).toHaveLength(1);
    expect(rows[0].progress).toContain("The bot token is xoxb-[redacted].");
    expect(rows[0].progress).not.toContain(TOKEN);
    expect((await stop(room)).body).toEqual({ stopped: true });
    expect((await live.until("done"))?.data).toMatchObject({ stopped: true });
  });

  it("after a restart, a command that held a secret is reported, not run from its redacted text", async () => {
    const room = freshRoom();
    const slow = `sleep 30 # ${unique("cut")}`;
    const text = `SAY64: ${btoa(`Two steps. <run>${slow}</run> <run>echo ${TOKEN} > token.txt</run>`)}`;
    const first = send(room, text, { idempotencyKey: "EvSecretCut" }).catch((e) => e);
    await until(async () => (await execCalls(`sandbox-${room}`)).length === 1, "the first command to start");
    await killRoom(room);
    await first;
    const retry = await send(room, text, { idempotencyKey: "EvSecretCut" });
    expect(retry.status).toBe(200);
    expect(retry.body.runs).toMatchObject([
      { cmd: slow, exitCode: null, error: expect.stringMatching(/outcome unknown/) },
      { cmd: "echo xoxb-[redacted] > token.txt", exitCode: null, error: expect.stringMatching(/held a secret/) },
    ]);
    expect((await execCalls(`sandbox-${room}`)).map((c) => c.command)).toEqual([slow]);
  });
});
