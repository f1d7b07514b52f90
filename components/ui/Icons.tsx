// Transport glyphs as inline SVG: the Unicode media symbols are missing from many system fonts.
const PATHS = {
  play: "M5 3.5v9l7.5-4.5z",
  pause: "M4.5 3.5h2.5v9H4.5zM9 3.5h2.5v9H9z",
  stepBack: "M11.5 3.5v9L5 8zM3.5 3.5h1.5v9H3.5z",
  stepForward: "M4.5 3.5v9L11 8zM11 3.5h1.5v9H11z",
  cycleBack: "M8 3.5v9L2.5 8zM14 3.5v9L8.5 8z",
  cycleForward: "M2 3.5v9L7.5 8zM8 3.5v9L13.5 8z",
} as const;

export function Icon({ name }: { name: keyof typeof PATHS }) {
  return (
    <svg width="14" height="14" viewBox="0 0 16 16" aria-hidden="true" fill="currentColor">
      <path d={PATHS[name]} />
    </svg>
  );
}
