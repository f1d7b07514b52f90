// Icon choice by theme and size (MCP icons[] with theme and sizes); unsafe and external sources refused.
import { describe, expect, it } from "vitest";
import { chooseIcon, isSafeIconSrc, parseSizes } from "../../lib/client/tool-icons";
import type { ToolIcon } from "../../lib/tools/schemas";

const icon = (src: string, extra: Partial<ToolIcon> = {}): ToolIcon => ({ src, ...extra });

describe("chooseIcon", () => {
  it("returns null when there is no icon (the view draws the neutral glyph)", () => {
    expect(chooseIcon([], { theme: "light", size: 20 })).toBeNull();
  });

  it("prefers the icon made for the current theme, then a theme-less one, then the other theme", () => {
    const light = icon("/api/icons/x-light.png", { theme: "light", sizes: ["32x32"] });
    const dark = icon("/api/icons/x-dark.png", { theme: "dark", sizes: ["32x32"] });
    const any = icon("/api/icons/x-any.png", { sizes: ["32x32"] });
    expect(chooseIcon([light, dark, any], { theme: "dark", size: 20 })).toBe(dark);
    expect(chooseIcon([light, dark, any], { theme: "light", size: 20 })).toBe(light);
    expect(chooseIcon([light, any], { theme: "dark", size: 20 })).toBe(any);
    expect(chooseIcon([light], { theme: "dark", size: 20 })).toBe(light);
  });

  it("picks the smallest size that is at least the drawn size times the pixel ratio", () => {
    const s16 = icon("/api/icons/x-16.png", { sizes: ["16x16"] });
    const s48 = icon("/api/icons/x-48.png", { sizes: ["48x48"] });
    const s128 = icon("/api/icons/x-128.png", { sizes: ["128x128"] });
    expect(chooseIcon([s128, s16, s48], { theme: "light", size: 20 })).toBe(s48);
    expect(chooseIcon([s128, s16, s48], { theme: "light", size: 16 })).toBe(s16);
    expect(chooseIcon([s128, s16, s48], { theme: "light", size: 20, pixelRatio: 3 })).toBe(s128);
    // Nothing big enough: the largest.
    expect(chooseIcon([s16, s48], { theme: "light", size: 64 })).toBe(s48);
  });

  it("takes a scalable icon over a too-small bitmap and a bitmap of unknown size", () => {
    const svg = icon("/api/icons/x-i.svg", { mimeType: "image/svg+xml" });
    const unknown = icon("/api/icons/x-i.png");
    const small = icon("/api/icons/x-s.png", { sizes: ["8x8"] });
    expect(chooseIcon([small, unknown, svg], { theme: "light", size: 24 })).toBe(svg);
    expect(chooseIcon([small, unknown], { theme: "light", size: 24 })).toBe(unknown);
    expect(chooseIcon([icon("/api/icons/x-a.png", { sizes: ["any"] }), small], { theme: "light", size: 24 })?.src).toBe(
      "/api/icons/x-a.png",
    );
  });

  it("lets theme win over size", () => {
    const darkSmall = icon("/api/icons/x-d16.png", { theme: "dark", sizes: ["16x16"] });
    const lightBig = icon("/api/icons/x-l64.png", { theme: "light", sizes: ["64x64"] });
    expect(chooseIcon([lightBig, darkSmall], { theme: "dark", size: 32 })).toBe(darkSmall);
  });

  it("refuses sources that are not images", () => {
    expect(isSafeIconSrc("javascript:alert(1)")).toBe(false);
    expect(isSafeIconSrc("data:text/html;base64,PHNjcmlwdD4=")).toBe(false);
    expect(isSafeIconSrc("//evil.example/x.png")).toBe(false);
    expect(isSafeIconSrc("data:image/png;base64,iVBORw0KGgo=")).toBe(true);
    expect(isSafeIconSrc("/emoji/happy.png")).toBe(true);
    expect(isSafeIconSrc("/api/icons/AbCdEfGhIjKlMnOpQrStUvWxYz012345")).toBe(true);
    expect(chooseIcon([icon("javascript:alert(1)")], { theme: "light", size: 20 })).toBeNull();
  });

  it("never picks an icon on another origin (the browser must not contact third parties)", () => {
    for (const src of [
      "https://example.com/i.png",
      "http://127.0.0.1:9/i.png",
      "HTTPS://example.com/i.png",
      "//evil.example/x.png",
      "/\\evil.example/x.png",
      " //evil.example/x.png",
      "/ /evil.example/x.png",
      "ftp://example.com/i.png",
      "blob:https://example.com/uuid",
    ]) {
      expect(isSafeIconSrc(src), src).toBe(false);
      expect(
        chooseIcon([icon(src, { theme: "light", sizes: ["32x32"] })], { theme: "light", size: 20 }),
        src,
      ).toBeNull();
    }
    const local = icon("/api/icons/AbCdEfGhIjKlMnOpQrStUvWxYz012345");
    expect(chooseIcon([icon("https://example.com/i.png", { theme: "dark" }), local], { theme: "dark", size: 20 })).toBe(
      local,
    );
  });

  it("parses sizes lists", () => {
    expect(parseSizes(icon("/api/icons/x", { sizes: ["16x16 32x32", "48x24"] }))).toEqual({
      scalable: false,
      px: [16, 32, 48],
    });
    expect(parseSizes(icon("data:image/svg+xml;base64,AA==")).scalable).toBe(true);
  });
});
