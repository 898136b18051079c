import { fileURLToPath } from "node:url";
import { bundle } from "./build/bundle.ts";

/** `pnpm build`: the bots as plain JavaScript in dist/bots (run with `pnpm start:slack` / `start:discord`). */

const out = fileURLToPath(new URL("../dist/bots", import.meta.url));
const started = performance.now();
await bundle(out);
console.log(`built the bots into ${out} in ${Math.round(performance.now() - started)} ms`);
