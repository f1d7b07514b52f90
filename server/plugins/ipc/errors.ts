// IPC failures carry a string code (lib/plugins/protocol.ts) so both processes and the tool results
// the model reads can tell a crash from a timeout from a plugin's own bug.
import type { IpcErrorBody, IpcErrorCode } from "../../../lib/plugins/protocol";

export class IpcError extends Error {
  override name = "IpcError";
  constructor(
    /** Usually an IpcErrorCode; a newer peer may send codes this side does not know. */
    readonly code: IpcErrorCode | (string & {}),
    message: string,
  ) {
    super(message);
  }

  toBody(): IpcErrorBody {
    return { code: this.code, message: this.message };
  }
}

/** A handler's exception as an error body: IpcErrors keep their code, anything else is the handler's. */
export function toIpcError(error: unknown): IpcError {
  if (error instanceof IpcError) return error;
  if (error instanceof Error) return new IpcError("E_HANDLER_FAILED", `${error.name}: ${error.message}`);
  return new IpcError("E_HANDLER_FAILED", String(error));
}
