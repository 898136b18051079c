/**
 * The shared client's waits between its tries of a Worker it cannot reach (250 ms doubling
 * to 4 s, about 8 s in all over its five retries), each cut to a twentieth: the same tries
 * in the same order, so a test of what a bot does once its tries are spent waits 0.4 s, not 8.
 */
export const quickRetrySleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms / 20));
