import { workspaceRoomId, type WorkerClient } from "@duet/shared";
import type { App, Logger } from "@slack/bolt";
import { z } from "zod";
import { removeRoom } from "../cleanup.ts";
import type { WorkerInstallationStore } from "./installation-store.ts";

/**
 * Under OAuth distribution, removing Duet from a workspace (or revoking its bot
 * token) also removes the workspace's installation, so no replica answers
 * there with a token Slack no longer honours. The named workspace's rooms are
 * cleaned by cleanup.ts, which listens to the same events. An org-wide install
 * spans workspaces and Slack names one: every other workspace it answered in
 * (recorded in the Worker by the installation store) is cleaned here, before
 * the installation goes, so a retried event finds them still listed.
 */

const revokedSchema = z.object({ tokens: z.object({ bot: z.array(z.string()).optional() }).optional() });
const bodySchema = z.object({
  team_id: z.string().min(1).optional(),
  enterprise_id: z.string().min(1).optional(),
  authorizations: z.array(z.object({ is_enterprise_install: z.boolean().optional() })).optional(),
});

export interface UninstallDeps {
  store: WorkerInstallationStore;
  worker: WorkerClient;
  logger: Logger;
}

export function registerUninstall(app: App, deps: UninstallDeps, track: (p: Promise<void>) => Promise<void>): void {
  for (const type of ["app_uninstalled", "tokens_revoked"] as const) {
    app.event(type, async ({ event, body }) => {
      if (type === "tokens_revoked" && !revokedSchema.safeParse(event).data?.tokens?.bot?.length) return;
      const parsed = bodySchema.safeParse(body);
      if (!parsed.success) return deps.logger.warn(`Ignored a malformed ${type} event`);
      const query = {
        teamId: parsed.data.team_id,
        enterpriseId: parsed.data.enterprise_id,
        isEnterpriseInstall: parsed.data.authorizations?.[0]?.is_enterprise_install ?? false,
      };
      await track(
        (async () => {
          if (query.isEnterpriseInstall && query.enterpriseId) {
            for (const team of await deps.store.orgTeams(query.enterpriseId)) {
              if (team !== query.teamId) await removeRoom(workspaceRoomId("slack", team), type, deps);
            }
          }
          await deps.store.deleteInstallation(query);
        })().catch((err: Error) => {
          deps.logger.error(`Could not remove the installation after ${type}: ${err.message}`);
        }),
      );
    });
  }
}
