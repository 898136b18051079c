import { describe, expect, test } from "vitest";
import { BusyError, Gate, gateLimitsOf } from "./queue.ts";

/** Enters and records the order in which commands were let in. */
function entrant(gate: Gate, order: string[]) {
  return (room: string, label = room, person?: string) => gate.enter(room, { person }).then((release) => (order.push(label), release));
}

describe("Gate", () => {
  test("lets `total` in, queues the rest in order, and refuses past the line's length", async () => {
    const gate = new Gate({ total: 2, perWorkspace: 2, perPerson: 2 }, 2);
    const order: string[] = [];
    const enter = entrant(gate, order);
    const a = await enter("sandbox-a");
    const b = await enter("sandbox-b");
    const c = enter("sandbox-c");
    const d = enter("sandbox-d");
    expect(gate.stats).toEqual({ running: 2, waiting: 2 });
    await expect(gate.enter("sandbox-e")).rejects.toBeInstanceOf(BusyError);

    a();
    const releaseC = await c;
    expect(order).toEqual(["sandbox-a", "sandbox-b", "sandbox-c"]);
    b();
    const releaseD = await d;
    expect(order.slice(2)).toEqual(["sandbox-c", "sandbox-d"]);
    releaseC();
    releaseC(); // twice is harmless
    releaseD();
    expect(gate.stats).toEqual({ running: 0, waiting: 0 });
  });

  test("one command per room: a room's second command waits while another room's runs", async () => {
    const gate = new Gate({ total: 4, perWorkspace: 4, perPerson: 4 }, 10);
    const order: string[] = [];
    const enter = entrant(gate, order);
    const first = await enter("sandbox-slack-T1-C1", "C1 first");
    const second = enter("sandbox-slack-T1-C1", "C1 second");
    const other = await enter("sandbox-slack-T1-C2", "C2");
    expect(order).toEqual(["C1 first", "C2"]);
    expect(gate.stats).toEqual({ running: 2, waiting: 1 });
    first();
    (await second)();
    other();
    expect(order).toEqual(["C1 first", "C2", "C1 second"]);
  });

  test("one workspace holds at most its share; another workspace's room starts at once", async () => {
    const gate = new Gate(gateLimitsOf(4), 10);
    const order: string[] = [];
    const enter = entrant(gate, order);
    const held = [await enter("sandbox-slack-T1-C1", "T1/C1", "ann"), await enter("sandbox-slack-T1-C2", "T1/C2", "bob"), await enter("sandbox-slack-T1-C3", "T1/C3", "cy")];
    const fourth = enter("sandbox-slack-T1-C4", "T1/C4", "dee");
    // T1 holds all but a quarter: its fourth room waits, though a slot is free...
    expect(gate.stats).toEqual({ running: 3, waiting: 1 });
    // ...and that one is there for another workspace's rooms.
    const victim = await enter("sandbox-discord-G9-C1", "G9/C1", "eve");
    expect(order).toEqual(["T1/C1", "T1/C2", "T1/C3", "G9/C1"]);
    held[0]();
    (await fourth)();
    held[1]();
    held[2]();
    victim();
    expect(gate.stats).toEqual({ running: 0, waiting: 0 });
  });

  test("one person's rooms hold at most half the slots; another person's room in the same workspace starts at once", async () => {
    const gate = new Gate(gateLimitsOf(8), 20);
    const order: string[] = [];
    const enter = entrant(gate, order);
    const held = await Promise.all([1, 2, 3, 4].map((n) => enter(`sandbox-slack-T1-C${n}`, `mallory/C${n}`, "slack-T1:UMAL")));
    const fifth = enter("sandbox-slack-T1-C5", "mallory/C5", "slack-T1:UMAL");
    expect(gate.stats).toEqual({ running: 4, waiting: 1 });
    const victim = await enter("sandbox-slack-T1-C9", "ann/C9", "slack-T1:UANN");
    expect(order.at(-1)).toBe("ann/C9");
    held[0]();
    (await fifth)();
    expect(order.at(-1)).toBe("mallory/C5");
    for (const release of [...held.slice(1), victim]) release();
    expect(gate.stats).toEqual({ running: 0, waiting: 0 });
  });

  test("commands naming no person share one person's part per workspace", async () => {
    const gate = new Gate(gateLimitsOf(8), 20);
    const order: string[] = [];
    const enter = entrant(gate, order);
    const held = await Promise.all([1, 2, 3, 4].map((n) => enter(`sandbox-cli-local-C${n}`)));
    const fifth = enter("sandbox-cli-local-C5");
    expect(gate.stats).toEqual({ running: 4, waiting: 1 });
    const named = await enter("sandbox-cli-local-C6", "ann", "cli-local:ann");
    expect(order.at(-1)).toBe("ann");
    held[0]();
    (await fifth)();
    for (const release of [...held.slice(1), named]) release();
  });

  test("the default shares of a few slots leave each person and workspace at least one", () => {
    expect(gateLimitsOf(1)).toEqual({ total: 1, perWorkspace: 1, perPerson: 1 });
    expect(gateLimitsOf(2)).toEqual({ total: 2, perWorkspace: 1, perPerson: 1 });
    expect(gateLimitsOf(8)).toEqual({ total: 8, perWorkspace: 6, perPerson: 4 });
  });

  test("a freed slot goes to the least busy workspace, and rooms with many commands take turns", async () => {
    const gate = new Gate({ total: 2, perWorkspace: 2, perPerson: 2 }, 10);
    const order: string[] = [];
    const enter = entrant(gate, order);
    const a = await enter("sandbox-slack-T1-C1", "T1/C1 #1");
    const b = await enter("sandbox-slack-T1-C2", "T1/C2");
    const waiting = [
      enter("sandbox-slack-T1-C1", "T1/C1 #2"),
      enter("sandbox-slack-T1-C1", "T1/C1 #3"),
      enter("sandbox-slack-T1-C3", "T1/C3"),
      enter("sandbox-slack-T2-C1", "T2/C1"),
    ];
    // T1 holds one after this release, T2 none: T2's room goes first though it came last.
    b();
    const t2 = await waiting[3];
    a();
    // T1's rooms in turn: C1's next command, then C3, then C1's last one.
    const c1 = await waiting[0];
    t2();
    const c3 = await waiting[2];
    c1();
    c3();
    (await waiting[1])();
    expect(order.slice(2)).toEqual(["T2/C1", "T1/C1 #2", "T1/C3", "T1/C1 #3"]);
    expect(gate.stats).toEqual({ running: 0, waiting: 0 });
  });

  test("a waiting command whose caller hung up leaves the line", async () => {
    const gate = new Gate({ total: 1, perWorkspace: 1, perPerson: 1 }, 10);
    const held = await gate.enter("sandbox-a");
    const hangup = new AbortController();
    const abandoned = gate.enter("sandbox-b", { signal: hangup.signal });
    expect(gate.stats.waiting).toBe(1);
    hangup.abort();
    await expect(abandoned).rejects.toMatchObject({ name: "AbortError" });
    expect(gate.stats).toEqual({ running: 1, waiting: 0 });
    held();
    expect(gate.stats).toEqual({ running: 0, waiting: 0 });
  });
});
