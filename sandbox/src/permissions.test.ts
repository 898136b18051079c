import { statSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { DEFAULT_HOST_UID } from "./config.ts";
import { asOtherUser, canActAsOtherUser } from "../../test/helpers/other-user.ts";
import { startTestExecutor, type TestExecutor } from "./test-support.ts";

// Rooms' files are the room's own: the sandbox writes them, other local users read nothing.

let ex: TestExecutor;
beforeAll(async () => {
  ex = await startTestExecutor();
});
afterAll(async () => {
  await ex?.stop();
});

describe.skipIf(!canActAsOtherUser)("workspace permissions (executor as root)", () => {
  test("the sandbox writes its workspace; another local user can neither list the rooms nor read a room's file", async () => {
    const room = "sandbox-slack-T1-private";
    const wrote = await ex.exec(room, "echo secret-of-the-room > notes.txt && mkdir -p src && echo x > src/a.txt && cat notes.txt");
    expect(wrote).toMatchObject({ exitCode: 0, stdout: "secret-of-the-room\n" });

    const workspace = join(ex.root, "sessions", room);
    const st = statSync(workspace);
    expect({ mode: st.mode & 0o777, uid: st.uid }).toEqual({ mode: 0o700, uid: DEFAULT_HOST_UID });

    const read = asOtherUser(["cat", join(workspace, "notes.txt")]);
    expect(read.status).not.toBe(0);
    expect(read.stderr).toContain("Permission denied");
    const list = asOtherUser(["ls", join(ex.root, "sessions")]);
    expect(list.status).not.toBe(0);
    expect(list.stderr).toContain("Permission denied");
  });
});
