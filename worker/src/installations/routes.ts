import { Hono } from "hono";
import { DuetError } from "@duet/shared";
import {
  INSTALLATION_KEY,
  keyOfInstallation,
  putInstallationSchema,
  refreshClaimSchema,
  TEAM_ID,
} from "@duet/shared/installations";
import type { Vars } from "../vars.ts";
import { jsonBody } from "../request.ts";
import { STORE_KEY_MIN_CHARS } from "./seal.ts";
import type { InstallationStore } from "./store-object.ts";

/**
 * `/api/installations/:key` (mounted at `/api/installations`): the Slack
 * installation store the bots share (bearer auth and the body limit come from
 * the `/api/*` middleware).
 * GET reads, PUT stores (with `ifVersion`: compare-and-swap), DELETE removes,
 * POST `/refresh` claims the one refresh of a rotating token. For an org-wide
 * install (`E…`), PUT `/teams/:team` records a workspace it answered in and GET
 * `/teams` lists them, so an uninstall cleans every one. Without
 * DUET_STORE_KEY every one of them answers 503 and nothing is read or written.
 */

type StoreBindings = Vars & { INSTALLATIONS: DurableObjectNamespace<InstallationStore>; DUET_STORE_KEY?: string };
/** `c.var.key`: the path's installation key, checked once for every route under it. */
type StoreApp = { Bindings: StoreBindings; Variables: { key: string } };

const closed = (message: string) => Response.json({ error: message, code: "store_closed" }, { status: 503 });

export const installationRoutes = new Hono<StoreApp>();

installationRoutes.use(async (c, next) => {
  const secret = c.env.DUET_STORE_KEY?.trim();
  if (!secret) return closed("the Worker has no DUET_STORE_KEY set, so it keeps no Slack installations (set it with `wrangler secret put DUET_STORE_KEY`)");
  if (secret.length < STORE_KEY_MIN_CHARS) return closed(`DUET_STORE_KEY must be at least ${STORE_KEY_MIN_CHARS} characters (e.g. \`openssl rand -base64 32\`)`);
  return next();
});

function keyOf(raw: string | undefined): string {
  if (!raw || !INSTALLATION_KEY.test(raw)) {
    throw new DuetError("invalid_request", "invalid request", {
      details: { key: ["Installation key must be a Slack team id (T…) or, for an org-wide install, an enterprise id (E…)"] },
    });
  }
  return raw;
}

installationRoutes.use("/:key/*", async (c, next) => {
  c.set("key", keyOf(c.req.param("key")));
  await next();
});

const store = (env: StoreBindings, key: string) => env.INSTALLATIONS.getByName(key);

installationRoutes.get("/:key", async (c) => {
  const key = c.var.key;
  const record = await store(c.env, key).get(key);
  if (!record) throw new DuetError("not_found", `no Slack installation for ${key}`);
  return c.json(record);
});

installationRoutes.put("/:key", jsonBody(putInstallationSchema), async (c) => {
  const key = c.var.key;
  const body = c.req.valid("json");
  if (keyOfInstallation(body.installation) !== key) {
    const what = body.installation.isEnterpriseInstall ? "installation.enterprise.id" : "installation.team.id";
    throw new DuetError("invalid_request", "invalid request", { details: { installation: [`${what} must be the key in the path (${key})`] } });
  }
  const result = await store(c.env, key).put(key, body.installation, body.ifVersion);
  if ("conflict" in result) {
    return c.json({ error: "the installation changed since it was read; read it again", code: "version_conflict", version: result.version }, 409);
  }
  return c.json(result);
});

installationRoutes.delete("/:key", async (c) => c.json({ deleted: await store(c.env, c.var.key).remove(c.var.key) }));

installationRoutes.post("/:key/refresh", jsonBody(refreshClaimSchema), async (c) => {
  return c.json(await store(c.env, c.var.key).claimRefresh(c.var.key, c.req.valid("json")));
});

/** An org's key (E…): only an org-wide install spans workspaces. */
function orgOf(key: string): string {
  if (!key.startsWith("E")) throw new DuetError("invalid_request", "invalid request", { details: { key: ["Only an org-wide install (an enterprise id, E…) has workspaces"] } });
  return key;
}

installationRoutes.get("/:key/teams", async (c) => {
  const key = orgOf(c.var.key);
  return c.json({ teams: await store(c.env, key).teams() });
});

installationRoutes.put("/:key/teams/:team", async (c) => {
  const key = orgOf(c.var.key);
  const team = c.req.param("team");
  if (!TEAM_ID.test(team)) throw new DuetError("invalid_request", "invalid request", { details: { team: ["Team must be a Slack team id (T…)"] } });
  return c.json({ added: await store(c.env, key).addTeam(key, team) });
});
