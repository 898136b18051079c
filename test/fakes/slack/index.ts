export * from "./server.ts";
export * from "./deliver.ts";
export * from "./state.ts";
export { validateBlocks, type Identity } from "./web-api.ts";
export type { SocketAck, EnvelopeOptions } from "./socket-mode.ts";
export { FakeOAuth, type Grant, type Installer, type OAuthApp } from "./oauth.ts";
export { SharedFiles, type SharedFileInput, type SharedFileMode, type ElsewhereRequest } from "./shared-files.ts";
export { messageShortcut, paneContextChanged, paneThreadStarted, viewSubmission } from "./app-surfaces.ts";
