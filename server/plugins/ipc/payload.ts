// A request's payload checked against its method's schema; a mismatch is the caller's E_BAD_PAYLOAD.
import type { z } from "zod";
import type { Envelope } from "../../../lib/plugins/protocol";
import { IpcError } from "./errors";

export function parsePayload<S extends z.ZodType>(schema: S, request: Envelope): z.infer<S> {
  const parsed = schema.safeParse(request.payload);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  throw new IpcError(
    "E_BAD_PAYLOAD",
    `${request.method}: ${issue ? `${issue.path.join(".") || "(root)"}: ${issue.message}` : "invalid payload"}`,
  );
}
