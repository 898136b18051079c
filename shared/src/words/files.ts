import { formatCount } from "../format/output.ts";

/**
 * Every sentence about files people read in the chat: uploads that did not
 * make it into the workspace, attachments too big for the platform, `get`.
 */

/** `12.3 MiB`, `512 KiB`, `18 bytes`: sizes as a person reads them. */
export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${formatCount(bytes)} byte${bytes === 1 ? "" : "s"}`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1).replace(/\.0$/, "")} KiB`;
  return `${(bytes / (1024 * 1024)).toFixed(1).replace(/\.0$/, "")} MiB`;
}

const quote = (name: string) => `\`${name.replace(/`/g, "'")}\``;

export const FILE_WORDS = {
  /** A shared file over DUET_FILE_MAX_BYTES: refused before or while it was read, nothing kept. */
  uploadTooBig: (name: string, max: number, bytes?: number) =>
    `${quote(name)}${bytes !== undefined ? ` (${formatBytes(bytes)})` : ""} is over the ${formatBytes(max)} a file may be, so it was not added to the workspace.`,
  /** More bytes came than the platform said the file has: cut off, nothing kept. */
  sizeChanged: (name: string, declared: number, platform: string) =>
    `${quote(name)} sent more than the ${formatBytes(declared)} ${platform} said it has, so it was not added to the workspace. Please share it again.`,
  /** The platform answered a page, not the file: Slack does that when the app lacks `files:read`. */
  loginPage: (name: string, platform: string) =>
    `Duet could not read ${quote(name)}: ${platform} answered with a login page instead of the file. The app needs the \`files:read\` scope: add it under OAuth & Permissions and reinstall the app.`,
  offHost: (name: string, platform: string) =>
    `Duet did not fetch ${quote(name)}: its link leads away from ${platform}'s own file servers, and Duet only reads files from those.`,
  unavailable: (name: string, platform: string) => `Duet could not fetch ${quote(name)} from ${platform}. Please share it again.`,
  /** Refused as too large by a limit the bot could not name (the workspace's room); `why` is the refusal's own words. */
  refusedTooLarge: (name: string, why: string) => `${quote(name)} was not added to the workspace: ${why.replace(/\.$/, "")}.`,
  /** The Worker refused or failed the write; `why` is describeForUser's sentence. */
  notSaved: (name: string, why: string) => `${quote(name)} was not added to the workspace. ${why}`,
  /** An attachment or a `get` the platform cannot carry. */
  tooBigToPost: (path: string, bytes: number, limit: number, platform: string) =>
    `${quote(path)} is ${formatBytes(bytes)}, over the ${formatBytes(limit)} ${platform} takes for a file; fetch it with \`duet get ROOM ${path.replace(/`/g, "'")}\` from the command line.`,
  /** A workspace file over DUET_FILE_MAX_BYTES: the Worker gives it to nobody, the CLI included. */
  overFileLimit: (path: string, max: number, bytes?: number) =>
    `${quote(path)}${bytes !== undefined ? ` (${formatBytes(bytes)})` : ""} is over the ${formatBytes(max)} a file may be to leave the workspace; compress or split it in the sandbox first (\`gzip\`, \`split -b\`).`,
  notFound: (path: string) => `There is no file ${quote(path)} in the workspace.`,
  badPath: (path: string, why: string) => `${quote(path)} is not a workspace path: ${why}.`,
  getUsage: "Name a file in the workspace, e.g. `get uploads/data.csv`.",
  /** What accompanies a file Duet posts for `get`. */
  fetched: (path: string, bytes: number) => `${quote(path)} (${formatBytes(bytes)})`,
  notPosted: (path: string, platform: string) => `${platform} did not accept ${quote(path)}; please try again.`,
  noFilesHere: "Files cannot be posted here.",
} as const;
