import { redactSecrets } from "@duet/shared";
import type { WorkerConfig } from "./config.ts";

/**
 * Redaction for everything the Worker stores or answers: well-known token
 * shapes (shared rules) plus the literal values of the Worker's own secrets.
 */
export function redactor(config: WorkerConfig): (text: string) => string {
  return (text) => redactSecrets(text, config.secrets);
}
