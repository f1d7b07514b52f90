"use client";
import { useTheme } from "../../lib/client/react/use-theme";

const LABEL = { system: "Auto", light: "Light", dark: "Dark" } as const;
const GLYPH = { system: "◐", light: "☀", dark: "☾" } as const;

export function ThemeToggle() {
  const { preference, cycle } = useTheme();
  return (
    <button
      className="btn btn-ghost btn-sm"
      onClick={cycle}
      title="Theme: auto (system) → dark → light"
      aria-label={`Theme ${LABEL[preference]}; change`}
    >
      <span aria-hidden="true">{GLYPH[preference]}</span> {LABEL[preference]}
    </button>
  );
}
