// The language before the operator chooses one: the browser's (Accept-Language on the server,
// navigator.languages in the page), Chinese for every Chinese tag, the browser's order kept.
import { describe, expect, it } from "vitest";
import { languagesOfHeader, localeOfLanguages } from "../../lib/i18n/negotiate";

describe("the browser's language", () => {
  it("is Chinese for any Chinese tag, English for English, the default otherwise", () => {
    for (const tag of ["zh-CN", "zh", "zh-Hans-CN", "zh-TW", "ZH_cn"]) expect(localeOfLanguages([tag])).toBe("zh-CN");
    expect(localeOfLanguages(["en-GB"])).toBe("en");
    expect(localeOfLanguages(["fr-FR", "de"])).toBe("en");
    expect(localeOfLanguages([])).toBe("en");
  });

  it("is the first of the browser's languages the console speaks", () => {
    expect(localeOfLanguages(["fr-FR", "zh-CN", "en"])).toBe("zh-CN");
    expect(localeOfLanguages(["en-US", "zh-CN"])).toBe("en");
  });

  it("reads Accept-Language by weight, the header's order for equal weights, q=0 and junk left out", () => {
    expect(languagesOfHeader("zh-CN,zh;q=0.9,en;q=0.8")).toEqual(["zh-CN", "zh", "en"]);
    expect(languagesOfHeader("en;q=0.5, zh-CN;q=0.9")).toEqual(["zh-CN", "en"]);
    expect(languagesOfHeader("fr, de")).toEqual(["fr", "de"]);
    expect(languagesOfHeader("zh;q=0, en")).toEqual(["en"]);
    expect(languagesOfHeader("*, <script>, en;q=abc, zh-CN")).toEqual(["zh-CN"]);
    expect(languagesOfHeader(undefined)).toEqual([]);
    expect(localeOfLanguages(languagesOfHeader("en;q=0.2,zh-TW;q=0.8"))).toBe("zh-CN");
  });
});
