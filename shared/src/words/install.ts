/** The pages a person sees in their browser after installing Duet in a Slack workspace. `where` is already escaped for HTML. */
export const INSTALL_WORDS = {
  installedTitle: "Duet is installed",
  installed: (where: string) => `Duet is in ${where}. Invite @Duet to a channel and mention it.`,
  yourWorkspace: "your workspace",
  notInstalledTitle: "Duet was not installed",
  notInstalled: "The install link has expired or was not started in this browser. Start again from /slack/install.",
} as const;
