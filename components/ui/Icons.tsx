// Glyphs as inline SVG: the Unicode media, weather and hourglass symbols are missing from many system
// fonts (a box in their place), so the dashboard draws its own.
const PATHS = {
  play: "M5 3.5v9l7.5-4.5z",
  pause: "M4.5 3.5h2.5v9H4.5zM9 3.5h2.5v9H9z",
  stepBack: "M11.5 3.5v9L5 8zM3.5 3.5h1.5v9H3.5z",
  stepForward: "M4.5 3.5v9L11 8zM11 3.5h1.5v9H11z",
  cycleBack: "M8 3.5v9L2.5 8zM14 3.5v9L8.5 8z",
  cycleForward: "M2 3.5v9L7.5 8zM8 3.5v9L13.5 8z",
  /** An hourglass: a message waiting. */
  wait: "M3.5 1.5h9V3h-9zM3.5 13h9v1.5h-9zM4.5 3h7L8 8zM8 8l3.5 5h-7z",
  /** Three bars: the narrow screen's menu. */
  menu: "M2 3.5h12V5H2zM2 7.25h12v1.5H2zM2 11h12v1.5H2z",
  /** The theme: a half-filled circle (auto), a sun (light), a crescent (dark). */
  themeSystem: "M8 2a6 6 0 1 0 0 12A6 6 0 0 0 8 2zm0 1.5v9a4.5 4.5 0 0 1 0-9z",
  themeLight:
    "M8 4.5a3.5 3.5 0 1 0 0 7 3.5 3.5 0 0 0 0-7zM7.25 0.5h1.5v2h-1.5zM7.25 13.5h1.5v2h-1.5zM0.5 7.25h2v1.5h-2zM13.5 7.25h2v1.5h-2zM2.7 1.7a1 1 0 1 0 0 2 1 1 0 0 0 0-2zM13.3 1.7a1 1 0 1 0 0 2 1 1 0 0 0 0-2zM2.7 12.3a1 1 0 1 0 0 2 1 1 0 0 0 0-2zM13.3 12.3a1 1 0 1 0 0 2 1 1 0 0 0 0-2z",
  themeDark: "M10.5 1.5a6.5 6.5 0 1 0 4 10.9A5.5 5.5 0 0 1 10.5 1.5z",
} as const;

export type IconName = keyof typeof PATHS;

export function Icon({ name }: { name: IconName }) {
  return (
    <svg className="icon" width="14" height="14" viewBox="0 0 16 16" aria-hidden="true" fill="currentColor">
      <path d={PATHS[name]} />
    </svg>
  );
}
