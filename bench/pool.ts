/** Runs `total` calls of `one`, `concurrency` at a time, and returns each call's latency in ms. */
export async function pool(total: number, concurrency: number, one: (i: number) => Promise<unknown>): Promise<number[]> {
  let next = 0;
  const latencies: number[] = [];
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < total) {
        const i = next++;
        const t0 = performance.now();
        await one(i);
        latencies.push(performance.now() - t0);
      }
    }),
  );
  return latencies;
}
