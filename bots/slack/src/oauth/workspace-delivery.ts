import type { DeliveryItem } from "@duet/shared";
import type { InstallationStore } from "@slack/bolt";
import { inWorkspace } from "./workspace-client.ts";

/**
 * A delivery under OAuth distribution: the item's workspace is named in its
 * target (the team, and the org for an org-wide install), else read from the
 * room id (`slack-<team>-<channel>`); its installation's bot token carries
 * every call of the delivery. Null (nothing posted) when the workspace has
 * no installation any more.
 */
export async function deliverInWorkspace(store: InstallationStore, item: DeliveryItem, deliver: (item: DeliveryItem) => Promise<string | null>): Promise<string | null> {
  const { team, enterprise } = item.deliver.place;
  const teamId = team ?? item.roomId.split("-")[1];
  const installation = await store.fetchInstallation({ teamId, enterpriseId: enterprise, isEnterpriseInstall: Boolean(enterprise) });
  const token = installation.bot?.token;
  if (!token) return null;
  return inWorkspace({ token, botUserId: installation.bot?.userId, teamId, ...(enterprise ? { enterpriseId: enterprise } : {}) }, () => deliver(item));
}
