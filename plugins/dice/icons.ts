// The tool's icon in a light and a dark variant, as SVG data URIs (no files to serve).
import type { ToolIcon } from "../../lib/tools/schemas";

const face = (ink: string) =>
  `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 24 24" fill="none" stroke="${ink}" stroke-width="1.8">` +
  `<rect x="3" y="3" width="18" height="18" rx="4"/>` +
  `<circle cx="8" cy="8" r="1.4" fill="${ink}"/><circle cx="12" cy="12" r="1.4" fill="${ink}"/><circle cx="16" cy="16" r="1.4" fill="${ink}"/>` +
  `</svg>`;

const dataUri = (svg: string) => `data:image/svg+xml;base64,${Buffer.from(svg).toString("base64")}`;

export const diceIcons: ToolIcon[] = [
  { src: dataUri(face("#1f2937")), mimeType: "image/svg+xml", sizes: ["any"], theme: "light" },
  { src: dataUri(face("#e5e7eb")), mimeType: "image/svg+xml", sizes: ["any"], theme: "dark" },
];
