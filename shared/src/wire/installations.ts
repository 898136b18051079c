import { z } from "zod";

/**
 * The installation store's wire contract (`/api/installations/:key`), shared by
 * the Worker that keeps installations and the Slack bot that reads them.
 *
 * An installation is what bolt's InstallProvider builds after `oauth.v2.access`;
 * the Worker validates the fields it relies on (the ids that make the key, the
 * bot's token) and keeps the rest as given. The key is the enterprise id for an
 * org-wide install and the team id otherwise, as Slack's own docs key them.
 */

/** Slack team ids start with T, enterprise (Grid org) ids with E. */
export const INSTALLATION_KEY = /^[TE][A-Z0-9]{2,40}$/;

const id = z.string().trim().min(1).max(64);
/** Tokens are short (~80 characters); the bound keeps a store entry small. */
const token = z.string().min(1).max(512);

const bot = z.looseObject({
  token,
  refreshToken: token.optional(),
  /** Seconds since the epoch (bolt's unit). */
  expiresAt: z.number().int().positive().optional(),
  id: id.optional(),
  userId: id,
  scopes: z.array(z.string().max(100)).max(100),
});

const user = z.looseObject({
  token: token.optional(),
  refreshToken: token.optional(),
  expiresAt: z.number().int().positive().optional(),
  id,
  scopes: z.array(z.string().max(100)).max(100).optional(),
});

const named = z.looseObject({ id, name: z.string().max(200).optional() });

export const installationSchema = z.looseObject({
  team: named.optional(),
  enterprise: named.optional(),
  isEnterpriseInstall: z.boolean().optional(),
  bot: bot.optional(),
  user,
  appId: id.optional(),
  tokenType: z.string().max(20).optional(),
  authVersion: z.enum(["v1", "v2"]).optional(),
});

export type StoredInstallation = z.infer<typeof installationSchema>;

/** The key an installation is stored under: its enterprise for an org-wide install, else its team. */
export function keyOfInstallation(i: { team?: { id: string }; enterprise?: { id: string }; isEnterpriseInstall?: boolean }): string | undefined {
  return i.isEnterpriseInstall ? i.enterprise?.id : i.team?.id;
}

/** The key a lookup (bolt's InstallationQuery) finds an installation under. */
export function keyOfQuery(q: { teamId?: string; enterpriseId?: string; isEnterpriseInstall?: boolean }): string | undefined {
  return q.isEnterpriseInstall ? q.enterpriseId : q.teamId;
}

/** PUT body: a plain store (an install), or a compare-and-swap on `ifVersion` (a token rotation). */
export const putInstallationSchema = z.object({
  installation: installationSchema,
  ifVersion: z.number().int().min(1).optional(),
});
export type PutInstallation = z.infer<typeof putInstallationSchema>;

/** POST .../refresh body: ask to be the one replica that refreshes the tokens of `version`. */
export const refreshClaimSchema = z.object({
  version: z.number().int().min(1),
  /** Who asks (a replica's random id), so the same replica may renew its own claim. */
  holder: z.string().trim().min(1).max(100),
  /** How long the claim holds if its holder never stores a result (a crashed replica). */
  leaseMs: z.number().int().min(100).max(60_000),
});
export type RefreshClaim = z.infer<typeof refreshClaimSchema>;

export const installationRecordSchema = z.object({ installation: installationSchema, version: z.number().int() });
export type InstallationRecord = z.infer<typeof installationRecordSchema>;

export const putResultSchema = z.object({ version: z.number().int() });
/** 409 on a compare-and-swap that lost: the version now stored (null when the installation was removed). */
export const versionConflictSchema = z.object({ code: z.literal("version_conflict"), version: z.number().int().nullable() });
export const refreshClaimResultSchema = z.object({ granted: z.boolean(), version: z.number().int().nullable() });
export type RefreshClaimResult = z.infer<typeof refreshClaimResultSchema>;
export const deleteResultSchema = z.object({ deleted: z.boolean() });

/** Slack team (workspace) ids; an org-wide install is answered in many of them. */
export const TEAM_ID = /^T[A-Z0-9]{2,40}$/;
/** The workspaces of a Grid org in which an org-wide install has been used, so an uninstall can clean every one. */
export const orgTeamsSchema = z.object({ teams: z.array(z.string()) });
export const teamAddedSchema = z.object({ added: z.boolean() });
