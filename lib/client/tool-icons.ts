// Picks the one icon to draw for a tool from the MCP `icons[]` list (2025-11-25: src, mimeType,
// sizes, theme). Everyone else draws icons[0]; we match the app theme first and then the size
// needed at this pixel ratio, and refuse sources that are not images (the list is untrusted) or not
// on this origin: the server already rewrote provider URLs to its icon proxy (/api/icons/…), so an
// absolute URL here would make the operator's browser contact a third party (and the CSP's img-src
// would block it anyway).
import type { ToolIcon } from "../tools/schemas";

export type Theme = "light" | "dark";

export interface IconRequest {
  theme: Theme;
  /** CSS pixels the icon is drawn at. */
  size: number;
  pixelRatio?: number;
}

/** Only images from this origin: same-origin paths (the icon proxy) and data:image URLs. */
export function isSafeIconSrc(src: string): boolean {
  const s = src.trim();
  if (/^data:image\/(png|gif|jpe?g|webp|svg\+xml|x-icon|vnd\.microsoft\.icon|avif);/i.test(s)) return true;
  // "//host" and "/\host" are other origins (browsers read a backslash as a slash).
  return /^\/(?![/\\])/.test(s) && !/[\s\\]/.test(s);
}

/** Parsed `sizes`: "any" (scalable) and the pixel sizes ("48x48" -> 48, the larger side). */
export function parseSizes(icon: ToolIcon): { scalable: boolean; px: number[] } {
  const px: number[] = [];
  let scalable = /svg/i.test(icon.mimeType ?? "") || /^data:image\/svg\+xml/i.test(icon.src);
  for (const token of (icon.sizes ?? []).flatMap((s) => s.split(/\s+/))) {
    if (token.toLowerCase() === "any") scalable = true;
    const m = /^(\d+)x(\d+)$/i.exec(token);
    if (m) px.push(Math.max(Number(m[1]), Number(m[2])));
  }
  return { scalable, px };
}

/** Lower is better: exact-or-larger bitmaps beat vector, which beats unknown, which beats too small. */
function sizeCost(icon: ToolIcon, targetPx: number): number {
  const { scalable, px } = parseSizes(icon);
  const fitting = px.filter((p) => p >= targetPx);
  if (fitting.length) return Math.min(...fitting) - targetPx;
  if (scalable) return 1_000;
  if (px.length === 0) return 2_000;
  return 3_000 + (targetPx - Math.max(...px));
}

function themeRank(icon: ToolIcon, theme: Theme): number {
  if (icon.theme === theme) return 0;
  if (icon.theme === undefined) return 1;
  return 2;
}

/** The best icon for the request, or null when none is usable (draw a neutral glyph). */
export function chooseIcon(icons: readonly ToolIcon[], request: IconRequest): ToolIcon | null {
  const targetPx = Math.ceil(request.size * (request.pixelRatio ?? 1));
  let best: { icon: ToolIcon; rank: number; cost: number } | null = null;
  for (const icon of icons) {
    if (!isSafeIconSrc(icon.src)) continue;
    const rank = themeRank(icon, request.theme);
    const cost = sizeCost(icon, targetPx);
    if (!best || rank < best.rank || (rank === best.rank && cost < best.cost)) best = { icon, rank, cost };
  }
  return best?.icon ?? null;
}
