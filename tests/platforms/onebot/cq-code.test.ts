// The OneBot v11 string message format (message/string.md): CQ codes parsed into segments, the
// escapes undone in text and parameter values, malformed codes kept as text.
import { describe, expect, it } from "vitest";
import { escapeCqParam, escapeCqText, parseCqMessage, unescapeCq } from "../../../server/platforms/onebot/cq-code";

describe("parseCqMessage", () => {
  it("splits text and codes in order", () => {
    expect(parseCqMessage("[CQ:face,id=178]看看我刚拍的照片[CQ:image,file=123.jpg]")).toEqual([
      { type: "face", data: { id: "178" } },
      { type: "text", data: { text: "看看我刚拍的照片" } },
      { type: "image", data: { file: "123.jpg" } },
    ]);
  });

  it("takes codes without parameters, and values with '=' after the first", () => {
    expect(parseCqMessage("[CQ:shake]")).toEqual([{ type: "shake", data: {} }]);
    expect(parseCqMessage("[CQ:share,title=标题中有=等号,url=http://baidu.com]")).toEqual([
      { type: "share", data: { title: "标题中有=等号", url: "http://baidu.com" } },
    ]);
  });

  it("undoes the escapes in text and in parameter values", () => {
    expect(parseCqMessage("- &#91;x&#93; 使用 `&amp;data` 获取地址")).toEqual([
      { type: "text", data: { text: "- [x] 使用 `&data` 获取地址" } },
    ]);
    expect(parseCqMessage("[CQ:share,title=震惊&#44;小伙睡觉前居然...,url=http://baidu.com/?a=1&amp;b=2]")).toEqual([
      { type: "share", data: { title: "震惊,小伙睡觉前居然...", url: "http://baidu.com/?a=1&b=2" } },
    ]);
  });

  it("keeps malformed codes as text", () => {
    const cases = [
      "[CQ:at,qq=1",
      "[CQ:,id=1]",
      "[CQ:face,id]",
      "[CQ:face,=1]",
      "[CQ:fa ce,id=1]",
      "a [CQ:x [CQ:face,id=1]",
    ];
    for (const message of cases.slice(0, 5)) {
      expect(parseCqMessage(message)).toEqual([{ type: "text", data: { text: message } }]);
    }
    // A broken code before a good one: the broken part is text, the good one still a code.
    expect(parseCqMessage(cases[5])).toEqual([
      { type: "text", data: { text: "a [CQ:x " } },
      { type: "face", data: { id: "1" } },
    ]);
  });

  it("parses a giant message of unclosed or broken codes as text (linear, not quadratic)", () => {
    const unclosed = "[CQ:at,qq=1".repeat(100_000);
    expect(parseCqMessage(unclosed)).toEqual([{ type: "text", data: { text: unclosed } }]);
    const broken = `${"[CQ:a[".repeat(100_000)}]`;
    expect(parseCqMessage(broken)).toEqual([{ type: "text", data: { text: broken } }]);
  });

  it("gives nothing for an empty message and one text segment for plain text", () => {
    expect(parseCqMessage("")).toEqual([]);
    expect(parseCqMessage("hello")).toEqual([{ type: "text", data: { text: "hello" } }]);
  });
});

describe("escapes", () => {
  it("escapes text so it never reads as a code, and round-trips", () => {
    const text = "[CQ:at,qq=all] & [x], y";
    const escaped = escapeCqText(text);
    expect(escaped).toBe("&#91;CQ:at,qq=all&#93; &amp; &#91;x&#93;, y");
    expect(parseCqMessage(escaped)).toEqual([{ type: "text", data: { text } }]);
    expect(unescapeCq(escaped)).toBe(text);
  });

  it("escapes parameter values with the comma too", () => {
    const value = "a,b&[c]";
    expect(escapeCqParam(value)).toBe("a&#44;b&amp;&#91;c&#93;");
    expect(parseCqMessage(`[CQ:share,title=${escapeCqParam(value)},url=u]`)).toEqual([
      { type: "share", data: { title: value, url: "u" } },
    ]);
  });
});
