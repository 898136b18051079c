/**
 * The child side of a bench bot process: tell the parent it is ready, answer
 * "stats" with its Worker traffic and the heap still in use after a full GC
 * (what the bot retains, as opposed to what V8 has not collected yet), stop
 * cleanly on "stop". The parent reads RSS from /proc before asking, so the GC
 * here does not flatter that figure.
 */
export function serveParent(ready: { port: number | null }, traffic: () => Record<string, number>, stop: () => Promise<void>): void {
  process.send?.({ type: "ready", ...ready });
  answerStats(traffic);
  process.on("message", (msg: { type?: string }) => {
    if (msg?.type === "stop") void stop().finally(() => process.exit(0));
  });
  // Without a parent there is nobody to measure for.
  process.on("disconnect", () => process.exit(0));
}

/** Answers the parent's `{type: "confirmed", n}` once this process's Worker has answered `n` delivery confirms (countConfirms). */
export function answerConfirmed(confirms: { after(n: number): Promise<void> }): void {
  process.on("message", (msg: { type?: string; n?: number }) => {
    if (msg?.type === "confirmed") void confirms.after(msg.n ?? 0).then(() => process.send?.({ type: "confirmed" }));
  });
}

/** Answers the parent's "stats" requests; also used alone by the built bots' probe. */
export function answerStats(traffic: () => Record<string, number>): void {
  process.on("message", (msg: { type?: string }) => {
    if (msg?.type !== "stats") return;
    (globalThis as { gc?: () => void }).gc?.();
    const m = process.memoryUsage();
    process.send?.({ type: "stats", heapAfterGcBytes: m.heapUsed, externalBytes: m.external, ...traffic() });
  });
}
