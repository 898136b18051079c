/** An error as Discord's API answers it: the HTTP status and a JSON body with its code and, for a form, the fields at fault. */

export class DiscordApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: number,
    message: string,
    readonly errors?: unknown,
  ) {
    super(message);
  }
  body() {
    return { message: this.message, code: this.code, ...(this.errors ? { errors: this.errors } : {}) };
  }
}
