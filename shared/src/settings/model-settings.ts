import { z } from "zod";
import { optionalIntVar, optionalNumberVar } from "../config/env-config.ts";

/**
 * The settings an operator gives the Worker for models and their cost, read
 * the same way by the Worker and by `pnpm dev` (which checks them before it
 * starts anything): the models a room may switch to, each with its provider,
 * and the daily token budgets.
 */

/** Who serves a model: Workers AI through the `AI` binding, or an OpenAI-compatible endpoint (OPENAI_BASE_URL). */
export const MODEL_PROVIDERS = ["workers-ai", "openai"] as const;
export type ModelProviderName = (typeof MODEL_PROVIDERS)[number];

/**
 * One entry of DUET_MODELS. `name` is what people choose with `/duet model`
 * (and what usage is counted under); `model` is the provider's own name for
 * it. `provider` is absent for a plain entry, which the configured
 * MODEL_PROVIDER serves.
 */
export interface OfferedModel {
  name: string;
  provider?: ModelProviderName;
  model: string;
  /** What the operator pays, in US dollars per million tokens read and written; absent: unpriced (usage shows tokens only). */
  price?: ModelPrice;
}

/** US dollars per million input and output tokens, which is also micro-dollars per token. */
export interface ModelPrice {
  input: number;
  output: number;
}

/** The dearest price per million tokens accepted: a typo (a missing decimal point) past this stops start-up. */
const MAX_PRICE_USD = 10_000;

const isProvider = (p: string): p is ModelProviderName => (MODEL_PROVIDERS as readonly string[]).includes(p);

/**
 * Reads DUET_MODELS: comma-separated entries, each either `name=provider:model`
 * (`fast=workers-ai:@cf/meta/llama-3.1-8b-instruct`, `strong=openai:gpt-4o`)
 * or a plain model name for MODEL_PROVIDER (`gpt-4o-mini`). In the named form
 * the provider ends at the first `:`, so a model name may hold more
 * (`local=openai:qwen2.5:7b`). Either form may end in its price, `@IN/OUT`
 * in US dollars per million input and output tokens
 * (`strong=openai:gpt-4o@2.5/10`); a Workers AI name's leading `@cf/` is no
 * price, since a price holds only digits, points and one slash. Answers the entries, or the one line that says what is wrong
 * (an unknown provider, an empty name or model, a name given twice, a price
 * that is not two amounts).
 */
export function readModelList(value: string | undefined): OfferedModel[] | string {
  const entries: OfferedModel[] = [];
  // Empty pieces (a trailing comma) are skipped, as in every other list variable.
  for (const raw of (value ?? "").split(",").map((e) => e.trim()).filter(Boolean)) {
    const entry = readEntry(raw);
    if (typeof entry === "string") return `DUET_MODELS has "${raw.slice(0, 60)}": ${entry}`;
    if (entries.some((e) => e.name === entry.name)) return `DUET_MODELS names "${entry.name}" twice; each name must be different`;
    entries.push(entry);
  }
  return entries;
}

function readEntry(text: string): OfferedModel | string {
  const priced = /^(.*)@([\d.eE+-]*\/[\d.eE+-]*)$/.exec(text);
  const raw = priced ? priced[1]!.trim() : text;
  const model = readModel(raw);
  if (typeof model === "string" || !priced) return model;
  const price = readPrice(priced[2]!);
  return typeof price === "string" ? price : { ...model, price };
}

/** `IN/OUT` (after the `@`): two amounts of dollars per million tokens. */
function readPrice(text: string): ModelPrice | string {
  const [input, output, extra] = text.split("/").map((p) => (p.trim() === "" ? NaN : Number(p)));
  const fine = (n: number | undefined) => n !== undefined && Number.isFinite(n) && n >= 0 && n <= MAX_PRICE_USD;
  if (extra !== undefined || !fine(input) || !fine(output)) {
    return `the price must be @IN/OUT, US dollars per million input and output tokens from 0 to ${MAX_PRICE_USD} (e.g. @2.5/10)`;
  }
  return { input: input!, output: output! };
}

function readModel(raw: string): OfferedModel | string {
  const eq = raw.indexOf("=");
  if (eq < 0) return { name: raw, model: raw };
  const name = raw.slice(0, eq).trim();
  const rest = raw.slice(eq + 1).trim();
  if (!name) return "the name before = is empty (write name=provider:model)";
  const colon = rest.indexOf(":");
  if (colon < 0) return `no provider (write ${name}=provider:model, provider one of ${MODEL_PROVIDERS.join(", ")})`;
  const provider = rest.slice(0, colon).trim();
  const model = rest.slice(colon + 1).trim();
  if (!isProvider(provider)) return `"${provider.slice(0, 30)}" is not a provider (one of ${MODEL_PROVIDERS.join(", ")})`;
  if (!model) return `the model after ${provider}: is empty`;
  return { name, provider, model };
}

/** DUET_MODELS as a zod field: the entries, or an issue with the one line. */
export const modelListVar = z
  .string()
  .optional()
  .transform((v, ctx) => {
    const read = readModelList(v);
    if (typeof read === "string") {
      ctx.addIssue({ code: "custom", message: read });
      return z.NEVER;
    }
    return read;
  });

/** The budget variables as zod fields: unset is no budget; anything but a whole number of tokens, or an amount of dollars, stops start-up. */
export const budgetFields = {
  /** Model tokens (in and out) a room may use per UTC day. */
  DUET_ROOM_DAILY_TOKENS: optionalIntVar("DUET_ROOM_DAILY_TOKENS", 1, 1e12),
  /** Model tokens one person may use per UTC day. */
  DUET_USER_DAILY_TOKENS: optionalIntVar("DUET_USER_DAILY_TOKENS", 1, 1e12),
  /** US dollars a room's priced models may cost per UTC day. */
  DUET_ROOM_DAILY_USD: optionalNumberVar("DUET_ROOM_DAILY_USD", 0.000001, 1e6),
  /** US dollars one person's turns on priced models may cost per UTC day. */
  DUET_USER_DAILY_USD: optionalNumberVar("DUET_USER_DAILY_USD", 0.000001, 1e6),
};

/** The models and budgets as zod fields, for the Worker's config and for `pnpm dev`'s check before it starts anything. */
export const modelSettingFields = { DUET_MODELS: modelListVar, ...budgetFields };

