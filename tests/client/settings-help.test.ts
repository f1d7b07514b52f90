// Every setting the Settings page shows has a human label and a line of help in both languages: the
// keys are read from the live settings' own schema, so a key added there without help fails here.
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { liveSettingsSchema } from "../../lib/api/settings";
import { LOCALES } from "../../lib/i18n/messages";
import { SETTING_PATHS, settingText } from "../../lib/i18n/settings-help";

/** The keys of an object schema, through defaults, prefaults and optionals. */
function keysOf(schema: z.ZodType): string[] {
  let s: z.ZodType = schema;
  while (!(s instanceof z.ZodObject)) {
    const inner =
      (s as unknown as { unwrap?: () => z.ZodType }).unwrap?.() ?? (s.def as { innerType?: z.ZodType }).innerType;
    if (!inner) throw new Error(`not an object schema: ${s.def.type}`);
    s = inner;
  }
  return Object.keys(s.shape);
}

function shownPaths(): string[] {
  const shape = liveSettingsSchema.shape;
  const chat = keysOf(shape.chat);
  const rule = (shape.chat as unknown as { unwrap(): z.ZodObject }).unwrap().shape.talkValueRules;
  const ruleItem = (rule as unknown as { unwrap(): z.ZodArray<z.ZodType> }).unwrap().element;
  return [
    ...keysOf(shape.bot).map((k) => `bot.${k}`),
    ...chat.map((k) => `chat.${k}`),
    ...keysOf(ruleItem).map((k) => `chat.talkValueRules.${k}`),
    ...keysOf(shape.models.shape.tasks).map((k) => `models.tasks.${k}`),
  ];
}

describe("settings help", () => {
  it("names every setting of the live settings' schema, in both languages, in words", () => {
    const paths = shownPaths();
    expect(paths.length).toBeGreaterThan(25);
    for (const locale of LOCALES)
      for (const path of paths) {
        const text = settingText(locale, path);
        expect(text, `${locale} ${path}`).not.toBeNull();
        expect(text!.label.trim(), `${locale} ${path} label`).not.toBe("");
        expect(text!.label, `${locale} ${path} label is not the key`).not.toBe(path.split(".").pop());
        expect(text!.help.trim().length, `${locale} ${path} help`).toBeGreaterThan(8);
      }
    // And nothing that is no setting any more.
    expect([...SETTING_PATHS].sort()).toEqual([...new Set(paths)].sort());
  });

  it("answers null for a path it does not know (the page shows the path, marked)", () => {
    expect(settingText("en", "chat.notASetting")).toBeNull();
    expect(settingText("zh-CN", "toString")).toBeNull();
  });
});
