"use client";
import { useT } from "../../lib/client/react/use-locale";
import { useTheme } from "../../lib/client/react/use-theme";
import { Icon } from "../ui/Icons";

const ICON = { system: "themeSystem", light: "themeLight", dark: "themeDark" } as const;

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
      <Icon name={ICON[preference]} /> {label}
    </button>
  );
}
