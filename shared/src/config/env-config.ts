import { z } from "zod";

/**
 * Helpers every package's config module uses: each reads its environment once
 * at start and stops with ONE line naming the variable that is missing or wrong.
 */

export class ConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ConfigError";
  }
}

/** An optional integer variable with a default and bounds; the error names the variable. */
export const intVar = (name: string, fallback: number, min: number, max: number) => boundedVar(name, fallback, min, max, true);

/** An optional decimal variable with a default and bounds; the error names the variable. */
export const numberVar = (name: string, fallback: number, min: number, max: number) => boundedVar(name, fallback, min, max, false);

function boundedVar<F extends number | undefined>(name: string, fallback: F, min: number, max: number, integer: boolean) {
  return z
    .string()
    .optional()
    .transform((v, ctx) => {
      if (v === undefined || v.trim() === "") return fallback as number | F;
      const n = Number(v);
      if (!(integer ? Number.isInteger(n) : Number.isFinite(n)) || n < min || n > max) {
        ctx.addIssue({ code: "custom", message: `${name} must be ${integer ? "an integer" : "a number"} from ${min} to ${max}` });
        return z.NEVER;
      }
      return n;
    });
}

/** An optional integer variable with bounds and no default: unset stays undefined. */
export const optionalIntVar = (name: string, min: number, max: number) => boundedVar(name, undefined, min, max, true);

/** An optional decimal variable with bounds and no default: unset stays undefined. */
export const optionalNumberVar = (name: string, min: number, max: number) => boundedVar(name, undefined, min, max, false);

/** An optional TCP port (0 = any free port); unset stays undefined. */
export const optionalPort = (name: string) => boundedVar(name, undefined, 0, 65535, true);

/** An optional text variable where an empty value counts as unset. */
export const optionalText = z
  .string()
  .optional()
  .transform((v) => (v && v.trim() ? v : undefined));

/** Empty strings count as unset, so `FOO=` in a .env file falls back to the default. Non-strings (Worker bindings) pass through. */
export function presentEnv<T extends Record<string, unknown>>(env: T): T {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(env)) if (!(typeof v === "string" && v.trim() === "")) out[k] = v;
  return out as T;
}

/** Parses the environment with `schema`, or throws a ConfigError whose message is one line naming the variable. */
export function parseEnv<S extends z.ZodType>(schema: S, env: Record<string, unknown>, label?: string): z.infer<S> {
  const parsed = schema.safeParse(presentEnv(env));
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  const name = String(issue.path[0] ?? "configuration");
  const line = issue.message.includes(name) ? issue.message : `${name}: ${issue.message}`;
  throw new ConfigError(label ? `${label}: ${line}` : line);
}

/**
 * An optional list variable of ids, separated by commas or spaces; each must pass
 * `valid`, else the error names the variable, the entry and `hint`. Unset or empty is [].
 */
export function idListVar(name: string, valid: (id: string) => boolean, hint: string) {
  return z
    .string()
    .optional()
    .transform((v, ctx) => {
      const ids = (v ?? "").split(/[\s,]+/).filter(Boolean);
      const bad = ids.find((id) => !valid(id));
      if (bad !== undefined) {
        ctx.addIssue({ code: "custom", message: `${name} has "${bad.slice(0, 40)}", which is not ${hint}` });
        return z.NEVER;
      }
      return [...new Set(ids)];
    });
}
