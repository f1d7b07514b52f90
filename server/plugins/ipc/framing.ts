// Length-prefixed frames: a 4-byte big-endian length, then that many bytes of UTF-8 JSON.
import { MAX_JSON_DEPTH, nestsDeeperThan } from "../../../lib/json/depth";
import { IpcError } from "./errors";

const HEADER_BYTES = 4;

export function encodeFrame(message: unknown, maxFrameBytes: number): Buffer {
  let json: string;
  try {
    json = JSON.stringify(message);
  } catch (error) {
    throw new IpcError(
      "E_BAD_PAYLOAD",
      `message is not serialisable: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
  const body = Buffer.from(json, "utf8");
  if (body.length > maxFrameBytes) {
    throw new IpcError("E_FRAME_TOO_LARGE", `frame of ${body.length} bytes exceeds the ${maxFrameBytes}-byte limit`);
  }
  const frame = Buffer.allocUnsafe(HEADER_BYTES + body.length);
  frame.writeUInt32BE(body.length, 0);
  body.copy(frame, HEADER_BYTES);
  return frame;
}

/** Reassembles frames from a byte stream split anywhere. */
export class FrameDecoder {
  private buffered: Buffer[] = [];
  private bufferedBytes = 0;

  constructor(private readonly maxFrameBytes: number) {}

  /** Returns the complete frames' parsed JSON; throws IpcError on an oversized or non-JSON frame. */
  push(chunk: Buffer): unknown[] {
    this.buffered.push(chunk);
    this.bufferedBytes += chunk.length;
    const out: unknown[] = [];
    for (;;) {
      if (this.bufferedBytes < HEADER_BYTES) break;
      const data = this.flatten();
      const length = data.readUInt32BE(0);
      // Refused from the header alone: a huge frame is never buffered.
      if (length > this.maxFrameBytes) {
        throw new IpcError(
          "E_FRAME_TOO_LARGE",
          `incoming frame of ${length} bytes exceeds the ${this.maxFrameBytes}-byte limit`,
        );
      }
      if (data.length < HEADER_BYTES + length) break;
      const body = data.subarray(HEADER_BYTES, HEADER_BYTES + length);
      this.buffered = [data.subarray(HEADER_BYTES + length)];
      this.bufferedBytes = data.length - HEADER_BYTES - length;
      let message: unknown;
      try {
        message = JSON.parse(body.toString("utf8"));
      } catch (error) {
        throw new IpcError(
          "E_BAD_PAYLOAD",
          `frame is not JSON: ${error instanceof Error ? error.message : String(error)}`,
        );
      }
      // The envelope adds a few levels to the values it carries (each at most MAX_JSON_DEPTH deep).
      if (nestsDeeperThan(message, 2 * MAX_JSON_DEPTH))
        throw new IpcError("E_BAD_PAYLOAD", `frame nested deeper than ${2 * MAX_JSON_DEPTH} levels`);
      out.push(message);
    }
    return out;
  }

  private flatten(): Buffer {
    if (this.buffered.length !== 1) this.buffered = [Buffer.concat(this.buffered)];
    return this.buffered[0];
  }
}
