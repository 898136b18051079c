import type { DiscordUser, InteractionRecord } from "../fakes/discord/index.ts";
import type { DiscordHarness } from "./harness.ts";

/** Discord's flag for a message only its recipient sees. */
export const EPHEMERAL = 64;
/** View Channel and Send Messages: a member who may talk here and nothing more. */
export const VIEW_AND_SEND = String((1 << 10) | (1 << 11));

/** What only the person who clicked or typed was told. */
export const privately = (rec: InteractionRecord) =>
  rec.followups
    .filter((m) => Number(m.flags ?? 0) & EPHEMERAL)
    .map((m) => m.content)
    .join("\n");

/**
 * Creates `roleId` once in the test guild, gives it to `members` and no role to
 * `others` (both may view and send), and resolves once the bot has the role in
 * its cache, so a permission check that follows sees it.
 */
export async function withRole(h: DiscordHarness, roleId: string, members: readonly DiscordUser[], others: readonly DiscordUser[]): Promise<void> {
  const guild = h.bot.client.guilds.cache.get(h.guildId)!;
  if (guild.roles.cache.has(roleId)) return;
  h.fake.addRole(h.guildId, "ops", roleId);
  for (const member of members) h.fake.setMember(member, { roles: [roleId], permissions: VIEW_AND_SEND });
  for (const other of others) h.fake.setMember(other, { roles: [], permissions: VIEW_AND_SEND });
  await new Promise<void>((resolve) => {
    const check = () => (guild.roles.cache.has(roleId) ? resolve() : setTimeout(check, 10));
    check();
  });
}
