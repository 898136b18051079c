import type { WorkerConfig } from "./config.ts";

// Replaced by the shared redaction once it lands; until then only the Worker's own secrets are masked.
export function redactor(config: WorkerConfig): (text: string) => string {
  return (text) => {
    let out = text;
    for (const s of config.secrets) if (s.length >= 8) out = out.split(s).join("[redacted]");
    return out;
  };
}
