// Draws the seed emoji (simple coloured faces) and encodes them as PNG with node:zlib, so the images
// written into the data folder are reproducible from code instead of opaque binaries of unknown origin.
import { crc32, deflateSync } from "node:zlib";

export type Mouth = "smile" | "frown" | "open" | "flat";

export interface FaceSpec {
  /** Face colour as [r, g, b]. */
  color: [number, number, number];
  mouth: Mouth;
  /** Slanted brows (angry). */
  brows?: boolean;
  /** A tear under the left eye (sad). */
  tear?: boolean;
}

const size = 64;
/** Sub-samples per pixel side: smooth edges without an anti-aliasing rasteriser. */
const ss = 4;

type Rgba = [number, number, number, number];
const ink: Rgba = [51, 38, 26, 255];
const tearBlue: Rgba = [90, 170, 255, 255];

/** Colour of the face at point (x, y) in a 0..1 square, or null outside it. */
function shade(face: FaceSpec, x: number, y: number): Rgba | null {
  const [cx, cy] = [x - 0.5, y - 0.5];
  const r = Math.hypot(cx, cy);
  if (r > 0.46) return null;
  if (r > 0.43) return ink; // outline
  if (face.tear && Math.hypot((x - 0.34) * 1.6, y - 0.55) < 0.05) return tearBlue;
  const eyeY = face.mouth === "open" ? 0.36 : 0.4;
  for (const ex of [0.35, 0.65]) if (Math.hypot(x - ex, (y - eyeY) * 0.8) < 0.055) return ink;
  if (face.brows) {
    // Two short strokes slanting down toward the nose.
    for (const [x0, dir] of [
      [0.27, 1],
      [0.73, -1],
    ] as const) {
      const t = (x - x0) * dir;
      if (t >= 0 && t <= 0.14 && Math.abs(y - (0.25 + t * 0.45)) < 0.022) return ink;
    }
  }
  if (inMouth(face.mouth, x, y)) return ink;
  const [red, green, blue] = face.color;
  return [red, green, blue, 255];
}

function inMouth(mouth: Mouth, x: number, y: number): boolean {
  const dx = x - 0.5;
  switch (mouth) {
    case "smile": // lower part of a ring
      return Math.abs(Math.hypot(dx, y - 0.5) - 0.22) < 0.028 && y > 0.6;
    case "frown": // upper part of a ring
      return Math.abs(Math.hypot(dx, y - 0.9) - 0.2) < 0.028 && y < 0.76;
    case "open":
      return Math.hypot(dx / 0.1, (y - 0.66) / 0.13) < 1;
    case "flat":
      return Math.abs(dx) < 0.16 && Math.abs(y - 0.68) < 0.022;
  }
}

/** RGBA pixels of the face, supersampled. */
export function drawFace(face: FaceSpec): Uint8Array {
  const px = new Uint8Array(size * size * 4);
  for (let py = 0; py < size; py++) {
    for (let pxX = 0; pxX < size; pxX++) {
      const sum = [0, 0, 0, 0];
      for (let sy = 0; sy < ss; sy++) {
        for (let sx = 0; sx < ss; sx++) {
          const c = shade(face, (pxX + (sx + 0.5) / ss) / size, (py + (sy + 0.5) / ss) / size);
          if (!c) continue;
          // Premultiplied accumulation so transparent samples do not darken the edge.
          for (let i = 0; i < 3; i++) sum[i] += c[i] * c[3];
          sum[3] += c[3];
        }
      }
      const o = (py * size + pxX) * 4;
      const alpha = sum[3] / (ss * ss);
      for (let i = 0; i < 3; i++) px[o + i] = sum[3] ? Math.round(sum[i] / sum[3]) : 0;
      px[o + 3] = Math.round(alpha);
    }
  }
  return px;
}

function chunk(type: string, data: Uint8Array): Buffer {
  const head = Buffer.alloc(8);
  head.writeUInt32BE(data.length, 0);
  head.write(type, 4, "latin1");
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(Buffer.concat([head.subarray(4), data])), 0);
  return Buffer.concat([head, data, crc]);
}

/** A size x size RGBA image as PNG (8-bit, colour type 6, no filtering). */
export function encodePng(rgba: Uint8Array, width = size, height = size): Buffer {
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr.set([8, 6, 0, 0, 0], 8);
  const raw = Buffer.alloc(height * (width * 4 + 1));
  for (let y = 0; y < height; y++) {
    raw[y * (width * 4 + 1)] = 0; // filter: none
    raw.set(rgba.subarray(y * width * 4, (y + 1) * width * 4), y * (width * 4 + 1) + 1);
  }
  const signature = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  return Buffer.concat([
    signature,
    chunk("IHDR", ihdr),
    chunk("IDAT", deflateSync(raw, { level: 9 })),
    chunk("IEND", new Uint8Array()),
  ]);
}
