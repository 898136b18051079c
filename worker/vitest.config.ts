import { cloudflareTest } from "@cloudflare/vitest-pool-workers";
import { builtinModules } from "node:module";
import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";
import { filesAtOnce } from "../test/helpers/files-at-once.ts";
import { WORKER_NODE_TESTS } from "./node-tests.ts";

const root = fileURLToPath(new URL("..", import.meta.url));

// Worker tests run inside workerd. The fake model and fake executor run in Node
// (globalSetup) on 127.0.0.1; their addresses reach the Worker as bindings.
export default defineConfig({
  plugins: [
    cloudflareTest(({ inject }) => ({
      main: `${root}/worker/src/index.ts`,
      remoteBindings: false,
      wrangler: { configPath: `${root}/wrangler.toml` },
      miniflare: {
        bindings: {
          DUET_API_TOKEN: "test-token-0123456789",
          DUET_API_TOKEN_PREVIOUS: "previous-token-9876543210",
          DUET_STORE_KEY: "test-store-key-0123456789abcdef0123456789",
          MODEL_PROVIDER: "openai",
          MODEL: "fake-model",
          // Two models of the configured provider (the fake OpenAI-compatible model), one of Workers AI (the fake binding
          // below), and a priced one (five thousandths of a dollar a token, so one ask passes the $1 per-person budget).
          DUET_MODELS: "fake-model,fake-large,edge=workers-ai:@cf/test/edge-model,priced=openai:fake-priced@5000/5000",
          OPENAI_BASE_URL: `${inject("fakeModelUrl")}/v1`,
          OPENAI_API_KEY: "sk-test-openai-key-0123456789",
          SANDBOX_PROVIDER: "local",
          SANDBOX_URL: inject("fakeExecutorUrl"),
          // The deadline for a whole answer: tests that hold an answer (HOLD:) while they fill a room's line hold it past
          // 1.5 s and 3 s on a loaded machine (rooms.test.ts's 429 test answered 504 at both), so 8 s; turns.test.ts's
          // timeout test waits past it.
          MODEL_TIMEOUT_MS: "8000",
          COMMAND_TIMEOUT_MS: "5000",
          // A tool server that never answers is given up on this soon (tools-slow.test.ts waits it out).
          DUET_TOOL_TIMEOUT_MS: "3000",
          // Answers unconfirmed this long are offered in the feed; short so tests see it at once.
          DUET_DELIVERY_GRACE_MS: "300",
          // How long an answer handed to a bot is its alone (15 s in production): a test of a bot that died waits it out.
          DUET_DELIVERY_LEASE_MS: "3000",
          // A per-person budget no test reaches, so every turn with a person counts across their workspace's rooms.
          DUET_USER_DAILY_TOKENS: "1000000000",
          // Only turns on a priced model count toward it: every other test spends nothing.
          DUET_USER_DAILY_USD: "1",
          GITHUB_APP_ID: "4242",
          GITHUB_APP_PRIVATE_KEY: inject("githubAppKey"),
          GITHUB_APP_SLUG: "duet-test",
          GITHUB_API_URL: inject("fakeGithubUrl"),
          FAKE_MODEL_URL: inject("fakeModelUrl"),
          FAKE_EXECUTOR_URL: inject("fakeExecutorUrl"),
          FAKE_MCP_URL: inject("fakeMcpUrl"),
          FAKE_MCP_OAUTH_URL: inject("fakeMcpOAuthUrl"),
          // The fake MCP servers are on 127.0.0.1 over http, which production refuses.
          DUET_TOOLS_ALLOW_PRIVATE: "1",
        },
        // Workers AI's `AI` binding cannot run locally: a wrapped binding stands in for it.
        wrappedBindings: { AI: { scriptName: "fake-workers-ai" } },
        workers: [{ name: "fake-workers-ai", modules: true, scriptPath: `${root}/worker/test/fixtures/fake-workers-ai.js` }],
      },
    })),
  ],
  test: {
    name: "worker",
    // The Worker's packages reach each file's runtime bundled, one module per package, rather than as the
    // hundreds of modules they are made of: every file starts a runtime of its own, and each module it loads is
    // transformed, serialised and sent to it by vitest's process. Bundled as wrangler bundles them for
    // production; the runtime's own modules (node:, cloudflare:) stay imports. Measured on the project alone:
    // 212 → 165 CPU s, 138 → 106 s (docs/testing.md).
    deps: {
      optimizer: {
        ssr: {
          enabled: true,
          include: ["zod", "hono", "hono/validator", "hono/http-exception", "hono/bearer-auth", "agents", "@cloudflare/sandbox", "@duet/shared > croner"],
          rolldownOptions: { external: [/^node:/, /^cloudflare:/, ...builtinModules] },
        },
      },
    },
    include: ["test/**/*.test.ts", "src/**/*.test.ts"],
    // Pure modules with no workerd imports are tested in Node: the unit and node projects (../vitest.config.ts).
    exclude: [...WORKER_NODE_TESTS.map((path) => `src/${path}`), "src/sandbox/process-group.test.ts", "**/node_modules/**"],
    globalSetup: [`${root}/worker/test/global-setup.ts`],
    // As many files at a time as the other projects, in one queue with them (../vitest.config.ts says why):
    // vitest's default on 2 cores is one (cores − 1), which left a core idle while each file's workerd
    // started and its tests waited on the fakes.
    maxWorkers: filesAtOnce(),
    // As long as the node project's: beside another file, recall's 300-turn room took 26 s.
    testTimeout: 60_000,
    sequence: { groupOrder: 1 },
  },
});
