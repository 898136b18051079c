import { DiscordApiError } from "./messages.ts";

/**
 * Modals as Discord takes and returns them: the rules a bot's modal must meet
 * (title, custom ids, labels, a text input's lengths), and the submission a
 * person's client sends back with what they typed.
 */

/** Discord's component types in a modal: 1 an action row (older), 4 a text input, 18 a label. */
const ACTION_ROW = 1;
const TEXT_INPUT = 4;
const LABEL = 18;

function modalError(field: string, message: string): DiscordApiError {
  return new DiscordApiError(400, 50035, "Invalid Form Body", { data: { [field]: { _errors: [{ code: "BASE_TYPE_BAD_LENGTH", message }] } } });
}

const within = (v: unknown, min: number, max: number) => typeof v === "string" && v.length >= min && v.length <= max;

/** The text inputs of a modal, whichever way they are wrapped, each with the label it is shown under. */
export function textInputs(modal: any): { label: string; input: any }[] {
  return (modal?.components ?? []).flatMap((c: any) => {
    if (c?.type === LABEL) return [{ label: c.label, input: c.component }];
    if (c?.type === ACTION_ROW) return (c.components ?? []).map((input: any) => ({ label: input?.label, input }));
    return [{ label: undefined, input: c }];
  });
}

export function validateModal(modal: any): void {
  if (!within(modal?.custom_id, 1, 100)) throw modalError("custom_id", "Must be between 1 and 100 in length.");
  if (!within(modal?.title, 1, 45)) throw modalError("title", "Must be between 1 and 45 in length.");
  const inputs = textInputs(modal);
  if (inputs.length < 1 || inputs.length > 5) throw modalError("components", "Must be between 1 and 5 in length.");
  for (const { label, input } of inputs) {
    if (input?.type !== TEXT_INPUT || !within(input.custom_id, 1, 100)) throw modalError("components", "Only text inputs with a custom_id of 1-100 characters.");
    if (!within(label, 1, 45)) throw modalError("components", "A label must be between 1 and 45 in length.");
    if (input.style !== 1 && input.style !== 2) throw modalError("components", "A text input's style is 1 or 2.");
    const max = input.max_length ?? 4000;
    if (max < 1 || max > 4000 || (input.min_length ?? 0) > max) throw modalError("components", "max_length must be between 1 and 4000.");
    if (input.value !== undefined && !within(input.value, 0, max)) throw modalError("components", "The value is longer than max_length.");
  }
}

/** What a person's client sends when they submit `modal`: each text input's custom id with the text typed in it, wrapped as the modal wrapped it. */
export function modalSubmission(modal: any, values: Record<string, string>): Record<string, unknown> {
  const field = (input: any) => ({ type: TEXT_INPUT, custom_id: input.custom_id, value: values[input.custom_id] ?? input.value ?? "" });
  const components = (modal.components ?? []).map((c: any) =>
    c.type === LABEL ? { type: LABEL, component: field(c.component) } : { type: ACTION_ROW, components: (c.components ?? []).map(field) },
  );
  return { custom_id: modal.custom_id, components };
}
