// Icon choice by theme and size (MCP icons[] with theme and sizes); unsafe sources refused.
import { describe, expect, it } from "vitest";
import { chooseIcon, isSafeIconSrc, parseSizes } from "../../lib/client/tool-icons";
import type { ToolIcon } from "../../lib/tools/schemas";

const icon = (src: string, extra: Partial<ToolIcon> = {}): ToolIcon => ({ src, ...extra });

describe("chooseIcon", () => {
  it("returns null when there is no icon (the view draws the neutral glyph)", () => {
    expect(chooseIcon([], { theme: "light", size: 20 })).toBeNull();
  });

  it("prefers the icon made for the current theme, then a theme-less one, then the other theme", () => {
    const light = icon("https://x/light.png", { theme: "light", sizes: ["32x32"] });
    const dark = icon("https://x/dark.png", { theme: "dark", sizes: ["32x32"] });
    const any = icon("https://x/any.png", { sizes: ["32x32"] });
    expect(chooseIcon([light, dark, any], { theme: "dark", size: 20 })).toBe(dark);
    expect(chooseIcon([light, dark, any], { theme: "light", size: 20 })).toBe(light);
    expect(chooseIcon([light, any], { theme: "dark", size: 20 })).toBe(any);
    expect(chooseIcon([light], { theme: "dark", size: 20 })).toBe(light);
  });

  it("picks the smallest size that is at least the drawn size times the pixel ratio", () => {
    const s16 = icon("https://x/16.png", { sizes: ["16x16"] });
    const s48 = icon("https://x/48.png", { sizes: ["48x48"] });
    const s128 = icon("https://x/128.png", { sizes: ["128x128"] });
    expect(chooseIcon([s128, s16, s48], { theme: "light", size: 20 })).toBe(s48);
    expect(chooseIcon([s128, s16, s48], { theme: "light", size: 16 })).toBe(s16);
    expect(chooseIcon([s128, s16, s48], { theme: "light", size: 20, pixelRatio: 3 })).toBe(s128);
    // Nothing big enough: the largest.
    expect(chooseIcon([s16, s48], { theme: "light", size: 64 })).toBe(s48);
  });

  it("takes a scalable icon over a too-small bitmap and a bitmap of unknown size", () => {
    const svg = icon("https://x/i.svg", { mimeType: "image/svg+xml" });
    const unknown = icon("https://x/i.png");
    const small = icon("https://x/s.png", { sizes: ["8x8"] });
    expect(chooseIcon([small, unknown, svg], { theme: "light", size: 24 })).toBe(svg);
    expect(chooseIcon([small, unknown], { theme: "light", size: 24 })).toBe(unknown);
    expect(chooseIcon([icon("https://x/a.png", { sizes: ["any"] }), small], { theme: "light", size: 24 })?.src).toBe(
      "https://x/a.png",
    );
  });

  it("lets theme win over size", () => {
    const darkSmall = icon("https://x/d16.png", { theme: "dark", sizes: ["16x16"] });
    const lightBig = icon("https://x/l64.png", { theme: "light", sizes: ["64x64"] });
    expect(chooseIcon([lightBig, darkSmall], { theme: "dark", size: 32 })).toBe(darkSmall);
  });

  it("refuses sources that are not images", () => {
    expect(isSafeIconSrc("javascript:alert(1)")).toBe(false);
    expect(isSafeIconSrc("data:text/html;base64,PHNjcmlwdD4=")).toBe(false);
    expect(isSafeIconSrc("//evil.example/x.png")).toBe(false);
    expect(isSafeIconSrc("data:image/png;base64,iVBORw0KGgo=")).toBe(true);
    expect(isSafeIconSrc("https://example.com/i.png")).toBe(true);
    expect(isSafeIconSrc("/emoji/happy.png")).toBe(true);
    expect(chooseIcon([icon("javascript:alert(1)")], { theme: "light", size: 20 })).toBeNull();
  });

  it("parses sizes lists", () => {
    expect(parseSizes(icon("https://x", { sizes: ["16x16 32x32", "48x24"] }))).toEqual({
      scalable: false,
      px: [16, 32, 48],
    });
    expect(parseSizes(icon("data:image/svg+xml;base64,AA==")).scalable).toBe(true);
  });
});
