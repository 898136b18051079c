import { startFakeCollector, type FakeCollector } from "../fakes/otlp.ts";
import { type SlackSetup, startSlackSetup } from "../slack/harness.ts";

/**
 * The Slack setup with a fake OTLP collector: one bot and the Worker both
 * export to it (with `headers` as OTEL_EXPORTER_OTLP_HEADERS when given), and
 * it is closed with the rest. `vars`: the Worker's other settings.
 */
export async function startTracedSlack(vars: Record<string, string> = {}, headers?: string): Promise<SlackSetup & { collector: FakeCollector }> {
  const collector = await startFakeCollector();
  const otlp = { OTEL_EXPORTER_OTLP_ENDPOINT: collector.url, ...(headers ? { OTEL_EXPORTER_OTLP_HEADERS: headers } : {}) };
  const setup = await startSlackSetup([otlp], { vars: { ...otlp, ...vars } }).catch(async (err) => {
    await collector.close();
    throw err;
  });
  return { ...setup, collector, stop: async () => (await setup.stop(), await collector.close()) };
}
