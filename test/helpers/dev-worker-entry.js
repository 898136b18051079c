// The entry the test run's one Worker bundle is built from (worker-bundle-setup.ts): the
// Worker as `wrangler dev` serves it. wrangler wraps a dev bundle's fetch so that a request
// body the Worker did not read (a 413 for an oversized upload, a 401 before the body) is
// read to its end before the response goes out (its ensure-req-body-drained middleware);
// a bundle started with `bundle: false` gets no middleware, so this adds the same step.
// Plain JavaScript: the test project's type-check has no Workers types.
import worker from "../../worker/src/index.ts";

// The Durable Object classes and every other export wrangler.toml's main has.
export * from "../../worker/src/index.ts";

export default {
  ...worker,
  async fetch(request, env, ctx) {
    try {
      return await worker.fetch(request, env, ctx);
    } finally {
      try {
        if (request.body !== null && !request.bodyUsed) {
          const reader = request.body.getReader();
          while (!(await reader.read()).done) {}
        }
      } catch (err) {
        console.error("Failed to drain the unused request body.", err);
      }
    }
  },
};
