import { describe, expect, it } from "vitest";
import { complexPreview, formatClock, formatDateTime, plannerPrefix } from "../../lib/chat/prefix";

// 2026-01-01 16:05:09 UTC = 2026-01-02 00:05:09 in UTC+8.
const T = Date.UTC(2026, 0, 1, 16, 5, 9);
const pad = (n: number) => String(n).padStart(2, "0");

describe("formatClock / formatDateTime", () => {
  it("uses the process's local zone by default", () => {
    const d = new Date(T);
    expect(formatClock(T)).toBe(`${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}`);
    expect(formatDateTime(d)).toBe(`${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())} ${formatClock(T)}`);
  });

  it("accepts IANA zones, offset strings and offset minutes", () => {
    expect(formatClock(T, "UTC")).toBe("16:05:09");
    expect(formatClock(T, "Asia/Shanghai")).toBe("00:05:09");
    expect(formatClock(T, "+08:00")).toBe("00:05:09");
    expect(formatClock(T, "+0800")).toBe("00:05:09");
    expect(formatClock(T, "-05:30")).toBe("10:35:09");
    expect(formatClock(T, "Z")).toBe("16:05:09");
    expect(formatClock(T, 480)).toBe("00:05:09");
    expect(formatDateTime(T, "Asia/Shanghai")).toBe("2026-01-02 00:05:09");
    expect(formatDateTime(new Date(T), -300)).toBe("2026-01-01 11:05:09");
  });

  it("writes midnight as 00, never 24", () => {
    expect(formatClock(Date.UTC(2026, 0, 1, 0, 0, 0), "UTC")).toBe("00:00:00");
    expect(formatDateTime(Date.UTC(2026, 11, 31, 23, 59, 59), "UTC")).toBe("2026-12-31 23:59:59");
  });
});

describe("plannerPrefix (docs/engine-rules.md#planner-prefix)", () => {
  it("renders one field a line, with the group card", () => {
    expect(
      plannerPrefix(
        { time: T, userName: "小明", groupCard: "群主·小明", messageId: "1024", text: "大家好\n第二行" },
        "Asia/Shanghai",
      ),
    ).toBe("[时间]00:05:09\n[用户名]小明\n[用户群昵称]群主·小明\n[msg_id]1024\n[发言内容]大家好\n第二行");
  });

  it("omits the group card line when there is none", () => {
    const expected = "[时间]16:05:09\n[用户名]Bob\n[msg_id]m-7\n[发言内容]hi";
    expect(plannerPrefix({ time: new Date(T), userName: "Bob", messageId: "m-7", text: "hi" }, "UTC")).toBe(expected);
    expect(plannerPrefix({ time: T, userName: "Bob", groupCard: "", messageId: "m-7", text: "hi" }, "UTC")).toBe(
      expected,
    );
  });
});

describe("complexPreview (docs/engine-rules.md#planner-prefix)", () => {
  it("shows at most 4 items and the view_complex_message hint", () => {
    const preview = [
      { sender: "甲", text: "第一条" },
      { sender: "乙", text: "第二条\n换行" },
      { sender: "丙", text: "第三条" },
      { sender: "丁", text: "第四条" },
      { sender: "戊", text: "第五条" },
    ];
    expect(complexPreview({ time: T, userName: "小明", messageId: "88", preview, total: 12 }, "UTC")).toBe(
      [
        "[时间]16:05:09",
        "[用户名]小明",
        "[msg_id]88",
        "[发言内容][消息类型]复杂消息 / 转发消息 / 预览前4条：",
        "甲：第一条",
        "乙：第二条 换行",
        "丙：第三条",
        "丁：第四条",
        "共12条，可以选择使用 view_complex_message 查看完整内容。",
      ].join("\n"),
    );
  });

  it("keeps the group card and short previews", () => {
    expect(
      complexPreview(
        {
          time: T,
          userName: "小明",
          groupCard: "管理员",
          messageId: "9",
          preview: [{ sender: "A", text: "x" }],
          total: 1,
        },
        "UTC",
      ),
    ).toBe(
      "[时间]16:05:09\n[用户名]小明\n[用户群昵称]管理员\n[msg_id]9\n[发言内容][消息类型]复杂消息 / 转发消息 / 预览前4条：\nA：x\n共1条，可以选择使用 view_complex_message 查看完整内容。",
    );
  });
});
