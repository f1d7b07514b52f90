// A re-run asked for what cannot be: an unknown session or cycle, a bad setting, nothing recorded.
// The API answers it with its status (api-errors.ts), the CLI with exit 2.
export class RerunInputError extends Error {
  override name = "RerunInputError";
  constructor(
    message: string,
    readonly status: 400 | 404 | 409 | 503 = 400,
  ) {
    super(message);
  }
}
