import { AsyncLocalStorage } from "node:async_hooks";
import { type AnyMiddlewareArgs, type Middleware, webApi } from "@slack/bolt";

/**
 * Under OAuth distribution each workspace has its own bot token and bot user.
 * bolt's authorize puts them in the event's context; this middleware keeps
 * them for everything the listeners start (answers run long after the ack),
 * and WorkspaceClient sends every call with the token of the workspace whose
 * event started it. The handlers keep one client and never pass tokens.
 */

export interface Workspace {
  token: string;
  botUserId?: string;
  /** Whose installation the token came from: the team, or the org for an org-wide install. */
  teamId?: string;
  enterpriseId?: string;
}

const current = new AsyncLocalStorage<Workspace>();

/** The workspace whose event is being handled, under OAuth distribution. */
export const currentWorkspace = (): Workspace | undefined => current.getStore();

/** Global middleware: runs the listeners inside their workspace. */
export const bindWorkspace: Middleware<AnyMiddlewareArgs> = async ({ context, next }) => {
  if (!context.botToken) return next();
  const org = context.isEnterpriseInstall ? { enterpriseId: context.enterpriseId } : {};
  return current.run({ token: context.botToken, botUserId: context.botUserId, teamId: context.teamId, ...org }, next);
};

/** Runs `fn` (a delivery no event started) as `workspace`: its calls go out with that workspace's token. */
export function inWorkspace<T>(workspace: Workspace, fn: () => Promise<T>): Promise<T> {
  return current.run(workspace, fn);
}

export class WorkspaceClient extends webApi.WebClient {
  override apiCall(method: string, options: Record<string, unknown> = {}): Promise<webApi.WebAPICallResult> {
    return super.apiCall(method, withToken(options));
  }

  override filesUploadV2(options: webApi.FilesUploadV2Arguments): Promise<webApi.WebAPICallResult & { files: webApi.FilesCompleteUploadExternalResponse[] }> {
    return super.filesUploadV2(withToken(options));
  }
}

function withToken<T extends object>(options: T): T {
  const workspace = current.getStore();
  return workspace && !("token" in options && options.token) ? { ...options, token: workspace.token } : options;
}
