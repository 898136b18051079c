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
      const [{ servers }, { tools: onHere }] = await Promise.all([deps.worker.toolServers(workspace), deps.worker.roomTools(asker.room)]);
      return { kind: "tools", listing: { servers, onHere } };
    });
    return outcome(ok, await show(surface, "tools", false, reply));
  }
  return guarded(
    surface,
    asker,
    "policy",
    async () => {
      const { reply, ok } = await attempt(deps, "tools", asker.room, async (): Promise<Reply> => ({ kind: "tools", event: await changed(deps, asker, workspace, change) }));
      // Nothing changed: only the asker hears.
      const shared = ok && reply.kind === "tools" && reply.event !== undefined && !UNCHANGED.has(reply.event.did);
      return outcome(ok, await show(surface, "tools", shared, reply));
    },
    TOOLS_WORDS.refusedWhat,
  );
}

const UNCHANGED = new Set<ToolsEvent["did"]>(["no-such-server", "was-off"]);

async function changed(deps: FlowDeps, asker: Asker, workspace: string, change: ToolsChange): Promise<ToolsEvent> {
  const by = asker.user;
  if ("add" in change) {
    const { name, url, headers } = change.add;
    const put = await deps.worker.putToolServer(workspace, name, { url, ...(Object.keys(headers).length ? { headers } : {}), userId: by, roomId: asker.room });
    return { did: "added", by, server: put.server, created: put.created };
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
