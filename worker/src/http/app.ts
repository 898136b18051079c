import { Hono } from "hono";
import { HTTPException } from "hono/http-exception";
import { DuetError } from "@duet/shared";
import { ConfigError, loadConfig } from "../config.ts";
import type { Env } from "../room/duet-agent.ts";
import { claimRoutes } from "../claims/routes.ts";
import { paceRoutes } from "../pace/routes.ts";
import { installationRoutes } from "../installations/routes.ts";
import { OAUTH_CALLBACK_PATH, oauthCallbackRoutes } from "../tools/oauth-callback-routes.ts";
import { toolRoutes } from "../tools/routes.ts";
import { requireToken } from "./auth.ts";
import { deliveryFeedRoutes } from "./delivery-routes.ts";
import { githubWebhookRoutes } from "./github-webhook-routes.ts";
import { info } from "./info.ts";
import { limitBody } from "./json-body.ts";
import { answerOtherMethods } from "./methods.ts";
import { roomRoutes } from "./room-routes.ts";

type App = { Bindings: Env };

export const app = new Hono<App>();

// Settings are read before anything else (once per isolate): a Worker with a
// malformed one answers every request, health checks too, with the one line
// naming it (503), rather than working in part.
app.use("*", async (c, next) => {
  loadConfig(c.env);
  await next();
});

app.get("/health", (c) => c.text("ok"));

// GitHub's webhook carries its own signature instead of the API token (github-webhook-routes.ts).
app.route("/github/webhook", githubWebhookRoutes);
// A tool server's OAuth sends a person's browser here: it proves itself by its state alone (oauth-callback-routes.ts).
app.route(OAUTH_CALLBACK_PATH, oauthCallbackRoutes);

app.use("/api/*", requireToken);
// A file upload streams through to the sandbox; every other body is small JSON.
app.use("/api/*", (c, next) => (c.req.method === "PUT" && /^\/api\/rooms\/[^/]+\/files\//.test(c.req.path) ? next() : limitBody(c, next)));

app.get("/api/info", info);

// Each route file is a sub-app mounted at its base path.
app.route("/api/rooms/:roomId", roomRoutes);
app.route("/api/deliveries", deliveryFeedRoutes);
app.route("/api/installations", installationRoutes);
app.route("/api/claims", claimRoutes);
app.route("/api/pace", paceRoutes);
app.route("/api/tools", toolRoutes);

// After every route: a known path asked with another method is a 405 naming the ones it takes.
answerOtherMethods(app);

app.notFound(() => Response.json({ error: "not found", code: "not_found" }, { status: 404 }));

app.onError((err) => {
  if (err instanceof DuetError) return Response.json(err.toBody(), { status: err.status });
  // hono's middleware (bearerAuth) answers this way; its response carries our JSON body.
  if (err instanceof HTTPException) return err.getResponse();
  if (err instanceof ConfigError) return Response.json({ error: err.message, code: "internal" }, { status: 503 });
  // Never a stack trace to the caller; the log keeps it for the operator.
  console.error("unhandled error", err);
  return Response.json({ error: "internal error", code: "internal" }, { status: 500 });
});
