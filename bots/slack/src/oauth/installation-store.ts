import { randomUUID } from "node:crypto";
import type { Installation, InstallationQuery, InstallationStore, Logger } from "@slack/bolt";
import {
  deleteResultSchema,
  type InstallationRecord,
  installationRecordSchema,
  keyOfInstallation,
  keyOfQuery,
  orgTeamsSchema,
  putResultSchema,
  refreshClaimResultSchema,
  type StoredInstallation,
  teamAddedSchema,
} from "@duet/shared/installations";
import type { z } from "zod";

/**
 * bolt's InstallationStore over the Worker's `/api/installations`: every
 * replica reads the same installations, and keeps a short cache so an event
 * does not cost a Worker round trip.
 *
 * Token rotation happens here, before bolt sees the installation: a token
 * within REFRESH_WINDOW_S of expiry is refreshed by the one replica the
 * Worker grants the refresh to (a lease on the installation's version); the
 * others re-read until the new version is stored. Slack revokes a refresh
 * token once used, so two replicas refreshing at once would lose one of them.
 * The window is wider than bolt's own (2 hours), so bolt never refreshes
 * behind the lease's back.
 */

/** Refresh when the bot token has less than this left (seconds): bolt's 2 hours plus a margin. */
export const REFRESH_WINDOW_S = 2 * 60 * 60 + 5 * 60;
/** How long a cached installation is trusted: another replica's uninstall reaches this one within it. */
export const CACHE_MS = 60_000;
/** A refresh claim's lease: long enough for one `oauth.v2.access`, short enough that a crashed holder does not stall rotation. */
const LEASE_MS = 15_000;
/** How often a replica that lost the claim re-reads the installation. */
const REREAD_MS = 100;

/** What `oauth.v2.access` with `grant_type=refresh_token` answers. */
export interface Refreshed {
  accessToken: string;
  refreshToken: string;
  expiresIn: number;
}

export interface StoreOptions {
  workerUrl: string;
  apiToken: string;
  logger: Logger;
  /** Calls Slack's `oauth.v2.access` with the refresh token. */
  refresh(refreshToken: string): Promise<Refreshed>;
  fetch?: typeof fetch;
  now?: () => number;
  cacheMs?: number;
}

class StoreError extends Error {}

export class WorkerInstallationStore implements InstallationStore {
  private readonly cache = new Map<string, { installation: Installation; until: number }>();
  private readonly loading = new Map<string, Promise<Installation>>();
  /** Workspaces of org-wide installs this replica has recorded in the Worker (only saves repeating it). */
  private readonly recordedTeams = new Set<string>();
  /** This replica, as the refresh lease names it. */
  private readonly holder = randomUUID();
  private readonly fetchImpl: typeof fetch;
  private readonly now: () => number;

  constructor(private readonly opts: StoreOptions) {
    this.fetchImpl = opts.fetch ?? fetch;
    this.now = opts.now ?? Date.now;
  }

  async storeInstallation(installation: Installation): Promise<void> {
    const key = keyOfInstallation(installation);
    if (!key) throw new StoreError("an installation without a team or enterprise id cannot be stored");
    this.cache.delete(key);
    await this.call("PUT", key, putResultSchema, { installation });
    this.opts.logger.info(`Stored the Slack installation of ${key}`);
  }

  async fetchInstallation(query: InstallationQuery<boolean>): Promise<Installation> {
    const key = keyOfQuery(query);
    if (!key) throw new StoreError("an event without a team or enterprise id has no installation");
    if (query.isEnterpriseInstall && query.teamId) this.recordTeam(key, query.teamId);
    const hit = this.cache.get(key);
    if (hit && hit.until > this.now()) return hit.installation;
    // One read (and at most one refresh) per key at a time in this replica.
    let pending = this.loading.get(key);
    if (!pending) {
      pending = this.load(key).finally(() => this.loading.delete(key));
      this.loading.set(key, pending);
    }
    return pending;
  }

  async deleteInstallation(query: InstallationQuery<boolean>): Promise<void> {
    const key = keyOfQuery(query);
    if (!key) return;
    this.cache.delete(key);
    await this.call("DELETE", key, deleteResultSchema);
    this.cache.delete(key);
    this.opts.logger.info(`Removed the Slack installation of ${key}`);
  }

  /** The workspaces an org-wide install (`enterpriseId`) has answered in, as every replica recorded them. */
  async orgTeams(enterpriseId: string): Promise<string[]> {
    return (await this.call("GET", `${enterpriseId}/teams`, orgTeamsSchema))?.teams ?? [];
  }

  /**
   * Records that an org-wide install answers in `team`, so an uninstall can
   * clean that workspace's rooms too (Slack names one workspace in it). Not
   * awaited: an event's handling never waits for it, and a failure is tried
   * again with the workspace's next event.
   */
  private recordTeam(key: string, team: string): void {
    const id = `${key}/${team}`;
    if (this.recordedTeams.has(id)) return;
    this.recordedTeams.add(id);
    this.call("PUT", `${key}/teams/${team}`, teamAddedSchema, {}).catch((err: Error) => {
      this.recordedTeams.delete(id);
      this.opts.logger.warn(`Could not record workspace ${team} of ${key}: ${err.message}`);
    });
  }

  private async load(key: string): Promise<Installation> {
    for (;;) {
      const record = await this.call("GET", key, installationRecordSchema);
      if (!record) throw new StoreError(`no Slack installation for ${key}`);
      if (!this.expiring(record.installation)) return this.remember(key, record.installation);
      const claim = await this.call("POST", `${key}/refresh`, refreshClaimResultSchema, { version: record.version, holder: this.holder, leaseMs: LEASE_MS });
      if (claim?.granted) {
        const fresh = await this.rotate(key, record);
        if (fresh) return this.remember(key, fresh);
      } else {
        await new Promise((r) => setTimeout(r, REREAD_MS));
      }
    }
  }

  /** Refreshes the tokens of the version this replica holds the lease on; null when the store moved on meanwhile. */
  private async rotate(key: string, record: InstallationRecord): Promise<StoredInstallation | null> {
    const bot = record.installation.bot;
    if (!bot?.refreshToken) return record.installation;
    const refreshed = await this.opts.refresh(bot.refreshToken);
    const installation: StoredInstallation = {
      ...record.installation,
      bot: { ...bot, token: refreshed.accessToken, refreshToken: refreshed.refreshToken, expiresAt: Math.floor(this.now() / 1000) + refreshed.expiresIn },
    };
    const stored = await this.call("PUT", key, putResultSchema, { installation, ifVersion: record.version });
    if (!stored) return null;
    this.opts.logger.info(`Rotated the Slack bot token of ${key}`);
    return installation;
  }

  private expiring(i: StoredInstallation): boolean {
    const at = i.bot?.refreshToken ? i.bot.expiresAt : undefined;
    return at !== undefined && at - this.now() / 1000 <= REFRESH_WINDOW_S;
  }

  /** Cached until CACHE_MS pass or the token enters the refresh window, whichever is first. */
  private remember(key: string, installation: StoredInstallation): Installation {
    const expiresAt = installation.bot?.refreshToken ? installation.bot.expiresAt : undefined;
    const refreshAt = expiresAt === undefined ? Infinity : (expiresAt - REFRESH_WINDOW_S) * 1000;
    this.cache.set(key, { installation: installation as unknown as Installation, until: Math.min(this.now() + (this.opts.cacheMs ?? CACHE_MS), refreshAt) });
    return installation as unknown as Installation;
  }

  /** One call to the store; null for 404 and for a lost compare-and-swap (409), the answers a caller acts on. */
  private async call<S extends z.ZodType>(method: string, path: string, schema: S, body?: unknown): Promise<z.infer<S> | null> {
    const res = await this.fetchImpl(`${this.opts.workerUrl}/api/installations/${path}`, {
      method,
      headers: { authorization: `Bearer ${this.opts.apiToken}`, ...(body ? { "content-type": "application/json" } : {}) },
      body: body ? JSON.stringify(body) : undefined,
    });
    if (res.status === 404 || res.status === 409) {
      await res.body?.cancel();
      return null;
    }
    const json: unknown = await res.json().catch(() => undefined);
    if (!res.ok) throw new StoreError(`the Worker's installation store answered ${res.status}: ${(json as { error?: string })?.error ?? "no reason given"}`);
    const parsed = schema.safeParse(json);
    if (!parsed.success) throw new StoreError(`the Worker's installation store answered ${method} ${path} with an unexpected body`);
    return parsed.data;
  }
}
