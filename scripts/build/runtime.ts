/**
 * How the built bots are run (`pnpm start:*`, the container image, the tests and
 * the benchmark), measured to keep an idle bot under 80 MiB resident:
 *
 * - `--max-semi-space-size=1`: V8's young generation grows to 16 MiB per
 *   semi-space under a burst and keeps it; a chat bot allocates little per
 *   event, so 1 MiB costs a few more scavenges and saves ~6 MiB.
 * - `MALLOC_MMAP_THRESHOLD_=65536`: glibc raises its mmap threshold after the
 *   big buffers V8 frees once the bundle is compiled, then keeps the freed
 *   memory in its heap; a fixed threshold gives it back (~8-10 MiB).
 * - `MALLOC_ARENA_MAX=1`: glibc gives each thread that mallocs (V8's compiler
 *   and GC helpers, libuv's pool) an arena of its own, each keeping freed
 *   memory; the bot's JavaScript runs on one thread, so one arena costs no
 *   measurable contention and saves ~3-6 MiB.
 *
 * The same values are written out in package.json, bots/Dockerfile and the
 * README's systemd unit.
 */
export const BUILT_NODE_FLAGS = ["--max-semi-space-size=1"];
export const BUILT_ENV: Record<string, string> = { MALLOC_MMAP_THRESHOLD_: "65536", MALLOC_ARENA_MAX: "1" };
