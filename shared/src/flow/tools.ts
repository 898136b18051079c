import type { DuetCommand } from "../commands/commands.ts";
import { DuetError } from "../wire/errors.ts";
import { workspaceOfRoom } from "../wire/room-id.ts";
import type { ToolsChange } from "../commands/tools-command.ts";
import { TOOLS_WORDS, type ToolsEvent } from "../words/tools.ts";
import { attempt, outcome } from "./attempt.ts";
import { show } from "./audience.ts";
import { guarded } from "./control.ts";
import { redacting } from "./redacting.ts";
import type { Reply } from "./reply.ts";
import type { ChatSurface } from "./surface.ts";
import type { Asker, FlowDeps, Outcome } from "./types.ts";

/**
 * `/duet tools`: the workspace's MCP servers and the room's choice of them,
 * once for every front end. The list is for the asker; adding, removing, and
 * turning a server on or off here are allowed to whoever may change the run
 * policy (a tool can act as a command can) and said to everyone. A typing
 * mistake is one line for the asker and never reaches the Worker.
 */
export async function tools(deps: FlowDeps, surface: ChatSurface, asker: Asker, command: Extract<DuetCommand, { kind: "tools" }>): Promise<Outcome> {
  surface = redacting(surface, deps.secrets);
  if ("problem" in command) return outcome(true, await show(surface, "tools", false, { kind: "error", text: command.problem, code: "invalid_request" }));
  const workspace = workspaceOfRoom(asker.room);
  const change = command.change;
  if (!change) {
    const { reply, ok } = await attempt(deps, "tools", asker.room, async () => {
      // A server the asker added that needs OAuth lists its link for them, where nobody else can see it.
      const [{ servers }, { tools: onHere }] = await Promise.all([deps.worker.toolServers(workspace, surface.postSecret ? asker.user : undefined), deps.worker.roomTools(asker.room)]);
      return { kind: "tools", listing: { servers, onHere } };
    });
    const secret = ok && reply.kind === "tools" && reply.listing?.servers.some((s) => s.authorizeUrl) && surface.postSecret;
    return outcome(ok, secret ? await surface.postSecret!(reply) : await show(surface, "tools", false, reply));
  }
  return guarded(
    surface,
    asker,
    "policy",
    async () => {
      let link: { name: string; url: string } | undefined;
      const { reply, ok } = await attempt(deps, "tools", asker.room, async (): Promise<Reply> => {
        const event = await changed(deps, asker, workspace, change);
        if (event.did !== "added") return { kind: "tools", event };
        const { authorization, ...added } = event;
        if (!authorization) return { kind: "tools", event: added };
        if ("problem" in authorization) return { kind: "tools", event: { ...added, authorization } };
        link = { name: added.server.name, url: authorization.url };
        return { kind: "tools", event: { ...added, authorization: { sent: surface.postSecret !== undefined } } };
      });
      // Nothing changed: only the asker hears.
      const shared = ok && reply.kind === "tools" && reply.event !== undefined && !UNCHANGED.has(reply.event.did);
      const posted = await show(surface, "tools", shared, reply);
      // The link after the news, and only where the asker alone sees it.
      if (link && surface.postSecret) await surface.postSecret({ kind: "tools", event: { did: "authorize", ...link } });
      return outcome(ok, posted);
    },
    TOOLS_WORDS.refusedWhat,
  );
}

const UNCHANGED = new Set<ToolsEvent["did"]>(["no-such-server", "was-off", "authorize"]);

/** What `changed` answers: an added server's link is still in it, for the flow to show the asker alone. */
type Changed = Exclude<ToolsEvent, { did: "added" }> | (Omit<Extract<ToolsEvent, { did: "added" }>, "authorization"> & { authorization?: { url: string } | { problem: string } });

async function changed(deps: FlowDeps, asker: Asker, workspace: string, change: ToolsChange): Promise<Changed> {
  const by = asker.user;
  if ("add" in change) {
    const { name, url, headers } = change.add;
    const put = await deps.worker.putToolServer(workspace, name, { url, ...(Object.keys(headers).length ? { headers } : {}), userId: by, roomId: asker.room });
    const authorization = put.authorize?.url ? { url: put.authorize.url } : put.authorize ? { problem: put.authorize.problem ?? "it asks for OAuth, which Duet cannot start with it" } : undefined;
    return { did: "added", by, server: put.server, created: put.created, ...(authorization ? { authorization } : {}) };
  }
  if ("remove" in change) {
    const { deleted } = await deps.worker.removeToolServer(workspace, change.remove, { userId: by, roomId: asker.room });
    return deleted ? { did: "removed", by, name: change.remove } : { did: "no-such-server", name: change.remove };
  }
  const name = change.name;
  if (change.room === "on") {
    try {
      await deps.worker.enableTool(asker.room, name, by);
    } catch (err) {
      if (err instanceof DuetError && err.code === "not_found") return { did: "no-such-server", name };
      throw err;
    }
    return { did: "on", by, name };
  }
  const before = await deps.worker.roomTools(asker.room);
  if (!before.tools.includes(name)) return { did: "was-off", name };
  await deps.worker.disableTool(asker.room, name, by);
  return { did: "off", by, name };
}
