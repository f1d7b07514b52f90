// Reads a JSON request body with a hard size limit. Oversized bodies answer 413 without being held in
// memory; the rest of such a body is discarded while the answer is written. A body nested past
// MAX_JSON_DEPTH answers 400 before any handler's schema (or anything else recursive) walks it.
import type { IncomingMessage } from "node:http";
import { nestsDeeperThan, TOO_DEEP } from "../../lib/json/depth";
import { HttpError } from "./errors";

const tooLarge = (limit: number) =>
  new HttpError(413, `request body larger than ${limit} bytes`, undefined, { connection: "close" });

export function readJsonBody(req: IncomingMessage, limit: number): Promise<unknown> {
  const declared = Number(req.headers["content-length"]);
  if (Number.isFinite(declared) && declared > limit) {
    req.resume();
    return Promise.reject(tooLarge(limit));
  }
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let failed = false;
    const onData = (chunk: Buffer) => {
      if (failed) return;
      size += chunk.length;
      if (size > limit) {
        failed = true;
        chunks.length = 0;
        reject(tooLarge(limit));
        return;
      }
      chunks.push(chunk);
    };
    req.on("data", onData);
    req.on("error", (error) => {
      if (!failed) reject(new HttpError(400, `request body could not be read: ${error.message}`));
      failed = true;
    });
    req.on("end", () => {
      if (failed) return;
      if (size === 0) return resolve(undefined);
      if (!isJson(req.headers["content-type"])) {
        return reject(new HttpError(415, "request body must be application/json"));
      }
      let value: unknown;
      try {
        value = JSON.parse(Buffer.concat(chunks).toString("utf8"));
      } catch (error) {
        return reject(
          new HttpError(
            400,
            `request body is not valid JSON: ${error instanceof Error ? error.message : String(error)}`,
          ),
        );
      }
      if (nestsDeeperThan(value)) return reject(new HttpError(400, `request body is ${TOO_DEEP}`));
      resolve(value);
    });
  });
}

function isJson(contentType: string | undefined): boolean {
  const type = contentType?.split(";")[0].trim().toLowerCase() ?? "";
  return type === "application/json" || type.endsWith("+json");
}
