// How every image the API serves is answered (tool icons, chat images, the emoji library): as bytes
// under a sandboxing policy, so an image opened directly (an SVG icon) runs nothing in this origin,
// cached privately for `maxAgeS`. Images fetched by the server map a failed fetch to its status.
import type { Reply } from "./route";
import { HttpError } from "./errors";
import { IconFetchError } from "./services/icon-proxy";

/** Inline styles only (an SVG may carry them): nothing may run, load or submit. */
const IMAGE_CSP = "default-src 'none'; style-src 'unsafe-inline'; sandbox";

export function imageReply(image: { bytes: Buffer; contentType: string }, maxAgeS: number): Reply<never> {
  return {
    raw: image,
    headers: { "cache-control": `private, max-age=${maxAgeS}`, "content-security-policy": IMAGE_CSP },
  };
}

/** An image the server fetches (icon proxy): its failures answer 404 / 502 with their reason. */
export async function fetchedImageReply(
  fetch: () => Promise<{ body: Buffer; mimeType: string }>,
  maxAgeS: number,
): Promise<Reply<never>> {
  try {
    const image = await fetch();
    return imageReply({ bytes: image.body, contentType: image.mimeType }, maxAgeS);
  } catch (error) {
    if (error instanceof IconFetchError) throw new HttpError(error.status, error.message);
    throw error;
  }
}
