// How chat messages are shown to the planner (docs/engine-rules.md#planner-prefix):
// a field-per-line prefix before the text, and a short preview for forwarded (complex) messages.

/**
 * A time zone: an IANA name ("Asia/Shanghai"), a fixed offset ("+08:00", "-0530", "+08", "Z"),
 * or a number of minutes east of UTC. Omitted = the process's local zone (as the original's
 * `time.localtime`).
 */
export type TimeZoneSpec = string | number;

const OFFSET_RE = /^([+-])(\d{2}):?(\d{2})?$/;

/** Minutes east of UTC for a fixed-offset spec, or null for an IANA name. */
function fixedOffsetMinutes(tz: TimeZoneSpec): number | null {
  if (typeof tz === "number") return tz;
  if (tz === "Z") return 0;
  const m = OFFSET_RE.exec(tz);
  if (!m) return null;
  const minutes = Number(m[2]) * 60 + Number(m[3] ?? 0);
  return m[1] === "-" ? -minutes : minutes;
}

interface DateTimeParts {
  year: string;
  month: string;
  day: string;
  hour: string;
  minute: string;
  second: string;
}

// Building a DateTimeFormat is costly and prefixes are rendered for every message on every request.
const formatters = new Map<string, Intl.DateTimeFormat>();

function formatterFor(timeZone: string): Intl.DateTimeFormat {
  const key = timeZone;
  let f = formatters.get(key);
  if (!f) {
    f = new Intl.DateTimeFormat("en-US", {
      timeZone,
      hourCycle: "h23", // 00-23, never "24:00:00" at midnight
      year: "numeric",
      month: "2-digit",
      day: "2-digit",
      hour: "2-digit",
      minute: "2-digit",
      second: "2-digit",
    });
    formatters.set(key, f);
  }
  return f;
}

const pad = (n: number, width = 2) => String(n).padStart(width, "0");

function partsFromDate(d: Date, utc: boolean): DateTimeParts {
  return utc
    ? {
        year: pad(d.getUTCFullYear(), 4),
        month: pad(d.getUTCMonth() + 1),
        day: pad(d.getUTCDate()),
        hour: pad(d.getUTCHours()),
        minute: pad(d.getUTCMinutes()),
        second: pad(d.getUTCSeconds()),
      }
    : {
        year: pad(d.getFullYear(), 4),
        month: pad(d.getMonth() + 1),
        day: pad(d.getDate()),
        hour: pad(d.getHours()),
        minute: pad(d.getMinutes()),
        second: pad(d.getSeconds()),
      };
}

function dateTimeParts(time: Date | number, tz?: TimeZoneSpec): DateTimeParts {
  const ms = time instanceof Date ? time.getTime() : time;
  // Local time and fixed offsets use Date's getters: formatToParts is slow on the hot path (every
  // message prefix of every request). Only IANA zones need Intl.
  if (tz === undefined) return partsFromDate(new Date(ms), false);
  const offset = fixedOffsetMinutes(tz);
  if (offset !== null) return partsFromDate(new Date(ms + offset * 60_000), true);
  const parts: DateTimeParts = { year: "", month: "", day: "", hour: "", minute: "", second: "" };
  for (const p of formatterFor(String(tz)).formatToParts(ms)) {
    if (p.type in parts) parts[p.type as keyof DateTimeParts] = p.value;
  }
  return parts;
}

/** `HH:MM:SS` (24-hour). `time` is a Date or epoch milliseconds. */
export function formatClock(time: Date | number, tz?: TimeZoneSpec): string {
  const p = dateTimeParts(time, tz);
  return `${p.hour}:${p.minute}:${p.second}`;
}

/** `YYYY-MM-DD HH:MM:SS` (24-hour), as in the planner's `当前时间：` line. */
export function formatDateTime(time: Date | number, tz?: TimeZoneSpec): string {
  const p = dateTimeParts(time, tz);
  return `${p.year.padStart(4, "0")}-${p.month}-${p.day} ${p.hour}:${p.minute}:${p.second}`;
}

export interface PlannerPrefixInput {
  time: Date | number;
  userName: string;
  groupCard?: string;
  messageId: string;
  text: string;
}

/**
 * The planner's view of one chat message, one field a line in the seed's order (docs/engine-rules.md#planner-prefix);
 * the group card line only when there is one, the text directly after `[发言内容]`.
 */
export function plannerPrefix(input: PlannerPrefixInput, tz?: TimeZoneSpec): string {
  const lines = [`[时间]${formatClock(input.time, tz)}`, `[用户名]${input.userName}`];
  if (input.groupCard) lines.push(`[用户群昵称]${input.groupCard}`);
  lines.push(`[msg_id]${input.messageId}`, `[发言内容]${input.text}`);
  return lines.join("\n");
}

export interface ComplexPreviewInput extends Omit<PlannerPrefixInput, "text"> {
  /** The first forwarded items; only the first 4 are shown. */
  preview: { sender: string; text: string }[];
  /** Number of items in the whole forward. */
  total: number;
}

/** Items shown in a complex message preview (docs/engine-rules.md#planner-prefix). */
const COMPLEX_PREVIEW_LIMIT = 4;

/**
 * A forwarded/complex message: the planner prefix, then the type line, up to 4 `sender：content`
 * lines and a hint that view_complex_message shows the rest.
 */
export function complexPreview(input: ComplexPreviewInput, tz?: TimeZoneSpec): string {
  // Multi-line items are flattened so each previewed item stays on one line.
  const items = input.preview
    .slice(0, COMPLEX_PREVIEW_LIMIT)
    .map((item) => `${item.sender}：${item.text.replace(/\s*\n\s*/g, " ")}`);
  const body = [
    "[消息类型]复杂消息 / 转发消息 / 预览前4条：",
    ...items,
    `共${input.total}条，可以选择使用 view_complex_message 查看完整内容。`,
  ].join("\n");
  const { time, userName, groupCard, messageId } = input;
  return plannerPrefix({ time, userName, groupCard, messageId, text: body }, tz);
}
