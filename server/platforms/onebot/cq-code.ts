// The OneBot v11 string message format (message/string.md): plain text with CQ codes such as
// `[CQ:image,file=a.jpg]` mixed in. Text escapes & [ ]; parameter values also escape the comma.
import type { OneBotSegment } from "../../../lib/platforms/onebot";

const UNESCAPES: Record<string, string> = { "&amp;": "&", "&#91;": "[", "&#93;": "]", "&#44;": "," };

/** Undoes the CQ escapes (of text and of parameter values alike; unknown entities stay as they are). */
export function unescapeCq(text: string): string {
  return text.replace(/&(?:amp|#91|#93|#44);/g, (entity) => UNESCAPES[entity] ?? entity);
}

/** Escapes plain text so it reads as text, never as CQ codes, in a string-format message. */
export function escapeCqText(text: string): string {
  return text.replace(/&/g, "&amp;").replace(/\[/g, "&#91;").replace(/\]/g, "&#93;");
}

/** Escapes a CQ code parameter value (text escapes plus the comma). */
export function escapeCqParam(value: string): string {
  return escapeCqText(value).replace(/,/g, "&#44;");
}

const TYPE = /^[A-Za-z0-9_.-]+$/;

/** The segment a CQ code's inside (between `[CQ:` and `]`) stands for; null when it is not a well-formed code. */
function parseCode(inner: string): OneBotSegment | null {
  const parts = inner.split(",");
  const type = parts[0];
  if (!TYPE.test(type)) return null;
  const data: Record<string, string> = {};
  for (const part of parts.slice(1)) {
    // The name is what precedes the first "=", the value the rest (it may contain more "=").
    const eq = part.indexOf("=");
    if (eq <= 0) return null;
    data[part.slice(0, eq)] = unescapeCq(part.slice(eq + 1));
  }
  return { type, data };
}

/**
 * The segments of a string-format message, in order: text runs become text segments (unescaped),
 * well-formed CQ codes their segments. A malformed code is kept as literal text, never dropped.
 */
export function parseCqMessage(message: string): OneBotSegment[] {
  const segments: OneBotSegment[] = [];
  let text = "";
  const flushText = () => {
    if (text) segments.push({ type: "text", data: { text: unescapeCq(text) } });
    text = "";
  };
  let at = 0;
  // The first "]" at or after the current "[CQ:", kept while it is ahead: every scan moves forward, so
  // a hostile message of many unclosed codes parses in linear time.
  let end = -1;
  while (at < message.length) {
    const start = message.indexOf("[CQ:", at);
    if (start < 0) break;
    if (end < start) end = message.indexOf("]", start);
    // No "]" anywhere after it: no code can follow; the rest is text.
    if (end < 0) break;
    const nextOpen = message.indexOf("[", start + 1);
    // Another "[" before the "]": not a code; keep "[CQ:" as text and go on from there.
    const segment = nextOpen < 0 || nextOpen > end ? parseCode(message.slice(start + "[CQ:".length, end)) : null;
    if (!segment) {
      text += message.slice(at, start + "[CQ:".length);
      at = start + "[CQ:".length;
      continue;
    }
    text += message.slice(at, start);
    flushText();
    segments.push(segment);
    at = end + 1;
  }
  text += message.slice(at);
  flushText();
  return segments;
}
