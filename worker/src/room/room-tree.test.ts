import { env, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { CHILD_CLEANUPS_AT_ONCE, cleanAll, RoomTree, type ParentRoom } from "./room-tree.ts";

let n = 0;
function withStorage<T>(fn: (storage: DurableObjectStorage) => Promise<T>): Promise<T> {
  const ns = (env as unknown as { DUET_AGENT: DurableObjectNamespace }).DUET_AGENT;
  const stub = ns.get(ns.idFromName(`tree-test-${Date.now()}-${n++}`));
  return runInDurableObject(stub, (_agent, state) => fn(state.storage));
}

/** Parents reached over RPC in production; here each records who registered with it. */
function parents() {
  const calls: string[] = [];
  const parent = (roomId: string): ParentRoom => ({
    registerChild: async (child) => {
      calls.push(`${child} -> ${roomId}`);
      return { runPolicy: null };
    },
  });
  return { calls, parent };
}

describe("RoomTree", () => {
  it("registers a thread room with its channel once, even across instances", async () => {
    await withStorage(async (storage) => {
      const { calls, parent } = parents();
      const thread = "slack-T1-C1-1700000000.000100";
      await new RoomTree(storage, thread, parent).ensureRegistered();
      await new RoomTree(storage, thread, parent).ensureRegistered();
      expect(calls).toEqual([`${thread} -> slack-T1-C1`]);
    });
  });

  it("a channel told of a thread records it and registers itself with its workspace", async () => {
    await withStorage(async (storage) => {
      const { calls, parent } = parents();
      const tree = new RoomTree(storage, "slack-T1-C1", parent);
      await tree.addChild("slack-T1-C1-1700000000.000100");
      await tree.addChild("slack-T1-C1-1700000000.000200");
      expect(tree.children()).toEqual(["slack-T1-C1-1700000000.000100", "slack-T1-C1-1700000000.000200"]);
      expect(calls).toEqual(["slack-T1-C1 -> slack-T1"]);
      // A top-level room has no parent to tell.
      await new RoomTree(storage, "slack-T1", parent).ensureRegistered();
      expect(calls).toHaveLength(1);
    });
  });

  it("takes a cleaned child off the list and keeps a failed one for the next clean-up; forgets its parent", async () => {
    await withStorage(async (storage) => {
      const { calls, parent } = parents();
      const tree = new RoomTree(storage, "slack-T1-C1", parent);
      await tree.addChild("slack-T1-C1-a");
      await tree.addChild("slack-T1-C1-b");
      const errors = await tree.cleanChildren(async (child) => (child.endsWith("-b") ? ["sandbox: stuck"] : []));
      expect(errors).toEqual(["slack-T1-C1-b: sandbox: stuck"]);
      expect(tree.children()).toEqual(["slack-T1-C1-b"]);
      tree.forgetParent();
      await tree.ensureRegistered();
      expect(calls).toEqual(["slack-T1-C1 -> slack-T1", "slack-T1-C1 -> slack-T1"]);
    });
  });
});

describe("what a room inherits from its parent", () => {
  it("keeps what the parent answered at registration, and what it pushes later, across instances", async () => {
    await withStorage(async (storage) => {
      const thread = "slack-T1-C1-1700000000.000100";
      const parent = () => ({ registerChild: async () => ({ runPolicy: "approve" as const }) });
      const tree = new RoomTree(storage, thread, parent);
      expect(tree.inheritedPolicy()).toBeNull();
      await tree.ensureRegistered();
      expect(new RoomTree(storage, thread, parent).inheritedPolicy()).toBe("approve");
      tree.inherit({ runPolicy: "auto" });
      expect(new RoomTree(storage, thread, parent).inheritedPolicy()).toBe("auto");
      tree.forgetParent();
      expect(tree.inheritedPolicy()).toBeNull();
    });
  });

  it("a push that arrives while the room registers wins over the registration's older answer", async () => {
    await withStorage(async (storage) => {
      let answer!: (v: { runPolicy: "auto" }) => void;
      const tree = new RoomTree(storage, "slack-T1-C1-1700000000.000200", () => ({ registerChild: () => new Promise((r) => (answer = r)) }));
      const registering = tree.ensureRegistered();
      const again = tree.ensureRegistered();
      tree.inherit({ runPolicy: "approve" });
      answer({ runPolicy: "auto" });
      await Promise.all([registering, again]);
      expect(tree.inheritedPolicy()).toBe("approve");
    });
  });
});

describe("cleanAll", () => {
  it("cleans a few children at a time and reports each failure, thrown or returned", async () => {
    const children = Array.from({ length: 20 }, (_, i) => `c${i}`);
    let running = 0;
    let most = 0;
    const cleaned: string[] = [];
    const failed = await cleanAll(
      children,
      async (child) => {
        running++;
        most = Math.max(most, running);
        await new Promise((r) => setTimeout(r, 1));
        running--;
        if (child === "c3") throw new Error("unreachable");
        return child === "c7" ? ["sandbox: busy"] : [];
      },
      (child) => cleaned.push(child),
    );
    expect(most).toBe(CHILD_CLEANUPS_AT_ONCE);
    expect([...failed]).toEqual([["c3", ["unreachable"]], ["c7", ["sandbox: busy"]]]);
    expect(cleaned.sort()).toEqual(children.filter((c) => c !== "c3" && c !== "c7").sort());
  });
});
