"use client";
// The icon chosen for the current theme and size, or a neutral glyph when there is none (or it
// fails to load). Sources are same-origin only (the server's icon proxy, or data:image URLs).
import { useEffect, useState } from "react";
import type { ToolIcon as ToolIconSpec } from "../../lib/tools/schemas";
import { useTheme } from "../../lib/client/react/use-theme";
import { chooseIcon } from "../../lib/client/tool-icons";

export function ToolIcon({ icons, size = 20 }: { icons: readonly ToolIconSpec[]; size?: number }) {
  const { theme } = useTheme();
  const [ratio, setRatio] = useState(1);
  const [broken, setBroken] = useState<string | null>(null);
  useEffect(() => setRatio(window.devicePixelRatio || 1), []);
  const icon = chooseIcon(icons, { theme, size, pixelRatio: ratio });
  if (!icon || broken === icon.src) return <NeutralGlyph size={size} />;
  return (
    // A plain img: proxied provider icons are not assets next/image could optimise.
    <img
      className="tool-icon"
      src={icon.src}
      width={size}
      height={size}
      alt=""
      loading="lazy"
      referrerPolicy="no-referrer"
      data-theme-choice={icon.theme ?? "any"}
      onError={() => setBroken(icon.src)}
    />
  );
}

function NeutralGlyph({ size }: { size: number }) {
  return (
    <svg
      className="tool-icon tool-glyph"
      width={size}
      height={size}
      viewBox="0 0 20 20"
      aria-hidden="true"
      data-testid="tool-glyph"
    >
      <rect x="1.5" y="1.5" width="17" height="17" rx="4" fill="none" stroke="currentColor" strokeWidth="1.3" />
      <path d="M6 10h8M10 6v8" stroke="currentColor" strokeWidth="1.3" strokeLinecap="round" />
    </svg>
  );
}
