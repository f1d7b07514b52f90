// The Runner's hello: the right protocol and SDK major version, and the secret of the current start.
import { timingSafeEqual } from "node:crypto";
import { PROTOCOL_VERSION, helloPayloadSchema, type Envelope } from "../../../lib/plugins/protocol";
import { SDK_VERSION } from "../sdk";
import { IpcError } from "../ipc/errors";

const major = (version: string) => version.split(".")[0];

/** Throws the IpcError the refused Runner is answered with. */
export function checkHello(request: Envelope, expectedToken: string | null): void {
  if (major(request.protocolVersion) !== major(PROTOCOL_VERSION)) {
    throw new IpcError(
      "E_PROTOCOL_MISMATCH",
      `protocol ${request.protocolVersion} is not compatible with ${PROTOCOL_VERSION}`,
    );
  }
  const hello = helloPayloadSchema.safeParse(request.payload);
  if (!hello.success) throw new IpcError("E_BAD_PAYLOAD", "malformed hello");
  if (major(hello.data.sdkVersion) !== major(SDK_VERSION)) {
    throw new IpcError(
      "E_PROTOCOL_MISMATCH",
      `plugin SDK ${hello.data.sdkVersion} is not compatible with ${SDK_VERSION}`,
    );
  }
  if (!expectedToken || !sameSecret(hello.data.token, expectedToken))
    throw new IpcError("E_UNAUTHORIZED", "wrong session token");
}

function sameSecret(given: string, expected: string): boolean {
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}
