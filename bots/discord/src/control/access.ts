import { DISCORD_WHO_MAY, type GuardedAction, type Permit } from "@duet/shared";
import { GuildMemberRoleManager, PermissionFlagsBits, type Interaction } from "discord.js";
import type { AccessRule } from "../config.ts";

/**
 * Who may run, approve, change the policy and reset, from DISCORD_ALLOW_*: members
 * with a listed role, or with the Manage Channels permission in the channel
 * when the list says `manage-channels` (Discord computes it per channel and
 * sends it with every interaction, administrators included).
 */

function rolesOf(interaction: Interaction): string[] {
  const roles = interaction.member?.roles;
  if (!roles) return [];
  return roles instanceof GuildMemberRoleManager ? [...roles.cache.keys()] : roles;
}

/** "the @Ops role, or the Manage Channels permission": Discord renders the role mention as its name. */
function whoMay(rule: { roles: string[]; manageChannels: boolean }): string {
  const names = rule.roles.map((r) => DISCORD_WHO_MAY.role(`<@&${r}>`));
  if (rule.manageChannels) names.push(DISCORD_WHO_MAY.manageChannels);
  return names.length === 1 ? names[0] : `${names.slice(0, -1).join(", ")} or ${names[names.length - 1]}`;
}

export function permitFor(rules: Record<GuardedAction, AccessRule>, interaction: Interaction): Permit {
  return async (action) => {
    const rule = rules[action];
    if (!rule) return null;
    if (rule.manageChannels && interaction.memberPermissions?.has(PermissionFlagsBits.ManageChannels)) return null;
    const mine = rolesOf(interaction);
    if (rule.roles.some((r) => mine.includes(r))) return null;
    return whoMay(rule);
  };
}
