/**
 * How the built bots are run (`pnpm start:*`, the container image, the tests and
 * the benchmark), measured to keep an idle bot under 80 MiB resident:
 *
 * - `--max-semi-space-size=1`: V8's young generation grows to 16 MiB per
 *   semi-space under a burst and keeps it; a chat bot allocates little per
 *   event, so 1 MiB costs a few more scavenges and saves ~6 MiB.
 * - `MALLOC_MMAP_THRESHOLD_=32768`: glibc raises its mmap threshold after the
 *   big buffers V8 frees once the bundle is compiled, then keeps the freed
 *   memory in its heap; a fixed threshold gives it back (~8-10 MiB). At 32 KiB
 *   rather than 64: V8's parser and compiler take their scratch memory in
 *   32 KiB zone segments (~1,300 of them, 41 MiB in all, while the Slack bot
 *   starts), which went to glibc's heap below 64 KiB, and one long-lived allocation
 *   made above them kept the whole freed stretch resident. Which build that
 *   happens to is luck of the layout (a Slack bundle 330 KB smaller idled at
 *   87 MiB instead of 79); as their own mappings they are returned when freed
 *   (76 MiB), at the cost of an mmap, a munmap and eight page faults per
 *   segment (about 13 a turn: bench/NOTES.md, "An idle built bot's memory").
 * - `MALLOC_ARENA_MAX=1`: glibc gives each thread that mallocs (V8's compiler
 *   and GC helpers, libuv's pool) an arena of its own, each keeping freed
 *   memory; the bot's JavaScript runs on one thread, so one arena costs no
 *   measurable contention and saves ~3-6 MiB.
 * - `--liftoff-only`: undici (Node's fetch, discord.js's REST client) compiles
 *   its HTTP parser from WebAssembly at its first response; V8's optimising tier
 *   takes ~29 MiB of malloc'd scratch memory for it. Alone, that memory goes
 *   back once the compile ends; in the Slack bot's HTTP mode the ack front's
 *   thread starts at the same moment, its long-lived allocations land above
 *   the scratch in the one arena, and glibc can no longer give it back (idle
 *   RSS 98-114 MiB instead of 79). The baseline compiler alone needs little,
 *   and the parser's speed is not what a chat bot waits on.
 * - `--optimize-for-size`: V8 favours memory over speed in its heuristics
 *   (smaller code and heap growth, earlier memory reduction). Idle RSS 79.7 →
 *   75.2 MiB (Slack HTTP) and 71.5 → 67.6 (Socket Mode); the time to the 👀
 *   and to the reply did not move measurably (a chat bot waits on the network).
 *
 * The same values are written out in package.json, bots/Dockerfile and the
 * systemd unit in docs/deploying.md.
 */
export const BUILT_NODE_FLAGS = ["--max-semi-space-size=1", "--liftoff-only", "--optimize-for-size"];
export const BUILT_ENV: Record<string, string> = { MALLOC_MMAP_THRESHOLD_: "32768", MALLOC_ARENA_MAX: "1" };
