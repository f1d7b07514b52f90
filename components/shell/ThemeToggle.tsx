"use client";
import { useT } from "../../lib/client/react/use-locale";
import { useTheme } from "../../lib/client/react/use-theme";

const GLYPH = { system: "◐", light: "☀", dark: "☾" } as const;

export function ThemeToggle() {
  const { preference, cycle } = useTheme();
  const t = useT();
  const label = t(`theme.${preference}`);
  return (
    <button
      className="btn btn-ghost btn-sm"
      onClick={cycle}
      title={t("theme.title")}
      aria-label={t("theme.label", { name: label })}
    >
      <span aria-hidden="true">{GLYPH[preference]}</span> {label}
    </button>
  );
}
