"use client";
// The effective theme (for icon choice) and the operator's preference (for the toggle).
import { useCallback, useSyncExternalStore } from "react";
import {
  effectiveTheme,
  nextPreference,
  parseThemePreference,
  storeThemePreference,
  type ThemePreference,
} from "../theme";
import type { Theme } from "../tool-icons";

const listeners = new Set<() => void>();
const notify = () => listeners.forEach((l) => l());

function subscribe(listener: () => void): () => void {
  listeners.add(listener);
  const media = window.matchMedia("(prefers-color-scheme: dark)");
  media.addEventListener("change", listener);
  return () => {
    listeners.delete(listener);
    media.removeEventListener("change", listener);
  };
}

const readPreference = (): ThemePreference => parseThemePreference(document.documentElement.dataset.theme);
const readTheme = (): Theme =>
  effectiveTheme(readPreference(), window.matchMedia("(prefers-color-scheme: dark)").matches);

export function useTheme(): { theme: Theme; preference: ThemePreference; cycle: () => void } {
  const preference = useSyncExternalStore(subscribe, readPreference, () => "system" as const);
  const theme = useSyncExternalStore(subscribe, readTheme, () => "light" as const);
  const cycle = useCallback(() => {
    storeThemePreference(nextPreference(readPreference()));
    notify();
  }, []);
  return { theme, preference, cycle };
}
