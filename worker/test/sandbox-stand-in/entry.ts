// The production Worker, with the stand-in in place of the container-backed Sandbox class.
import worker from "../../src/index.ts";
import { containerId } from "../../src/sandbox/container-id.ts";
import type { ContainerlessSandbox } from "./container-stand-in.ts";

export { DuetAgent, ContainerProxy, DeliveryFeed } from "../../src/index.ts";
export { ContainerlessSandbox } from "./container-stand-in.ts";

type StandInBindings = { Sandbox: DurableObjectNamespace<ContainerlessSandbox>; WORKSPACES: R2Bucket };

/**
 * Test-only routes beside the Worker's: what a room's stand-in container was given
 * for its network (`/_stand-in/network?room=`), what a request from inside it
 * to `url` would get (`/_stand-in/probe?room=&url=`), the processes it was asked
 * to run (`/_stand-in/processes?room=`), every request the SDK sent it
 * (`/_stand-in/requests?room=`); and it can hold back its answers to stream
 * requests while their processes run (`/_stand-in/hold?room=`, `/_stand-in/release?room=`).
 * Its container can sleep (`/_stand-in/sleep?room=`: Duet's sleep hook, then the disk
 * is wiped) or crash (`/_stand-in/crash?room=`: wiped without warning), run a command
 * outside any turn (`/_stand-in/run?room=&cmd=`); `/_stand-in/saved` lists the saved
 * workspaces in the local R2 bucket.
 */
export default {
  async fetch(request: Request, env: StandInBindings, ctx: ExecutionContext): Promise<Response> {
    const url = new URL(request.url);
    if (!url.pathname.startsWith("/_stand-in/")) return worker.fetch(request, env as never, ctx);
    if (url.pathname === "/_stand-in/saved") {
      const listed = await env.WORKSPACES.list();
      return Response.json(listed.objects.map((o) => ({ key: o.key, size: o.size, etag: o.etag })));
    }
    const sandbox = env.Sandbox.get(env.Sandbox.idFromName(await containerId(url.searchParams.get("room") ?? "")));
    if (url.pathname === "/_stand-in/network") return Response.json(await sandbox.networkSeen());
    if (url.pathname === "/_stand-in/probe") return Response.json(await sandbox.probe(url.searchParams.get("url") ?? ""));
    if (url.pathname === "/_stand-in/processes") return Response.json(await sandbox.processesSeen());
    if (url.pathname === "/_stand-in/requests") return Response.json(await sandbox.requestsSeen());
    if (url.pathname === "/_stand-in/run") return Response.json({ stdout: await sandbox.runInContainer(url.searchParams.get("cmd") ?? "") });
    if (url.pathname === "/_stand-in/sleep" || url.pathname === "/_stand-in/crash") {
      await (url.pathname === "/_stand-in/sleep" ? sandbox.sleep() : sandbox.crash());
      return new Response(null, { status: 204 });
    }
    if (url.pathname === "/_stand-in/hold" || url.pathname === "/_stand-in/release") {
      await (url.pathname === "/_stand-in/hold" ? sandbox.holdStreams() : sandbox.releaseStreams());
      return new Response(null, { status: 204 });
    }
    return new Response("not found", { status: 404 });
  },
};
