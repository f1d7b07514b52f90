// OneBot v11 message segments (message/segment.md) → the content of a ChatMessageRecord: the text the
// models read (placeholders for what they cannot), the bot's @, the quoted message, images, and the
// inner messages of a merged forward. Lookups (get_msg, get_forward_msg) may fail or be slow: a
// failure gives a placeholder, never a lost message.
import { z } from "zod";
import {
  onebotIdSchema,
  onebotMessageSchema,
  type OneBotMessage,
  type OneBotSegment,
} from "../../../lib/platforms/onebot";
import type { Logger } from "../../kernel/logger";
import type { MessageStore } from "../../stores/messages";
import type { OneBotApi } from "./api";
import { parseCqMessage } from "./cq-code";

export type Locale = "zh-CN" | "en";

import type { ChatImage } from "../../../lib/chat/images";

export interface ForwardEntry {
  sender: string;
  text: string;
}

export interface MessageContent {
  text: string;
  /** The bot's own account was @-ed. */
  atBot: boolean;
  /** True when the message addresses the bot without an @ of it (@all, a reply to the bot); else undefined. */
  mentionsBot: true | undefined;
  /** The platform id of the quoted message (a reply segment), or null. */
  replyTo: string | null;
  images: ChatImage[];
  /** The inner messages of a merged forward; null when the message has none. */
  forward: ForwardEntry[] | null;
}

export interface SegmentContext {
  selfId: string;
  /** The chat session the message belongs to (where a quoted message is looked up first). */
  sessionId: string;
  api: OneBotApi;
  messages: Pick<MessageStore, "get">;
  locale: Locale;
  logger: Logger;
  /** How long one lookup (get_msg, get_forward_msg) may take. */
  lookupTimeoutMs: number;
  /** The name a user of this chat is known by (for an @ without a name), if known. */
  nameOf?: (userId: string) => string | undefined;
}

/** Longest text a message keeps; the rest is cut with a note (a giant message is taken, not refused). */
export const MAX_TEXT_CHARS = 4_000;
/** Most inner messages one message's forwards keep (nested ones included). */
export const MAX_FORWARD_ENTRIES = 100;
/** Most images one message keeps (the rest are placeholders only). */
export const MAX_IMAGES = 20;
const MAX_ENTRY_CHARS = 1_000;
const MAX_FORWARD_DEPTH = 3;
const QUOTE_CHARS = 40;

const LABELS = {
  "zh-CN": {
    image: "图片",
    flash: "闪照",
    face: "表情",
    sticker: "表情包",
    dice: "骰子",
    rps: "猜拳",
    poke: "戳一戳",
    shake: "窗口抖动",
    share: "分享",
    card: "卡片消息",
    record: "语音",
    video: "视频",
    file: "文件",
    location: "位置",
    music: "音乐",
    contactUser: "推荐好友",
    contactGroup: "推荐群",
    forward: "合并转发",
    items: (n: number) => `${n} 条`,
    reply: "回复",
    someMessage: "一条消息",
    atAll: "全体成员",
    truncated: "（消息过长，已截断）",
  },
  en: {
    image: "image",
    flash: "flash image",
    face: "emoji",
    sticker: "sticker",
    dice: "dice",
    rps: "rock-paper-scissors",
    poke: "poke",
    shake: "shake",
    share: "link",
    card: "card",
    record: "voice",
    video: "video",
    file: "file",
    location: "location",
    music: "music",
    contactUser: "contact",
    contactGroup: "group card",
    forward: "forwarded messages",
    items: (n: number) => `${n} item${n === 1 ? "" : "s"}`,
    reply: "reply to",
    someMessage: "a message",
    atAll: "everyone",
    truncated: " (message too long, cut)",
  },
} as const;
type Labels = (typeof LABELS)[Locale];

/** A message in either format as segments. */
export function segmentsOf(message: OneBotMessage): OneBotSegment[] {
  return typeof message === "string" ? parseCqMessage(message) : message;
}

/** A segment data value as text ("" when absent or not a scalar). */
function str(data: Record<string, unknown>, key: string): string {
  const v = data[key];
  return typeof v === "string" ? v : typeof v === "number" ? String(v) : "";
}

function clip(text: string, max: number, note = "…"): string {
  return text.length <= max ? text : `${text.slice(0, max)}${note}`;
}

/** Ids go back on the wire as numbers where they are numbers (int32/int64 in the spec). */
export function wireId(id: string): number | string {
  const n = Number(id);
  return /^\d+$/.test(id) && Number.isSafeInteger(n) ? n : id;
}

function bracket(label: string, detail?: string): string {
  return detail ? `[${label} ${detail}]` : `[${label}]`;
}

function addImage(out: MessageContent, image: ChatImage): void {
  if (out.images.length < MAX_IMAGES) out.images.push(image);
}

/** A card's title: JSON `prompt` or `meta.*.title`/`desc`; XML `brief` or `<title>`. Null when none. */
export function cardTitle(type: "json" | "xml", raw: string): string | null {
  if (type === "xml") {
    const brief = /\bbrief="([^"]*)"/.exec(raw)?.[1];
    const title = /<title>([^<]*)<\/title>/.exec(raw)?.[1];
    return (brief || title || "").trim() || null;
  }
  let card: unknown;
  try {
    card = JSON.parse(raw);
  } catch {
    return null;
  }
  if (!card || typeof card !== "object") return null;
  const { prompt, meta } = card as { prompt?: unknown; meta?: unknown };
  if (meta && typeof meta === "object") {
    for (const entry of Object.values(meta)) {
      if (!entry || typeof entry !== "object") continue;
      const { title, desc } = entry as { title?: unknown; desc?: unknown };
      const found = [title, desc].find((v): v is string => typeof v === "string" && v.trim() !== "");
      if (found) return typeof prompt === "string" && prompt.trim() ? `${prompt.trim()} ${found.trim()}` : found.trim();
    }
  }
  return typeof prompt === "string" && prompt.trim() ? prompt.trim() : null;
}

// Answers of get_msg and get_forward_msg, loose: implementations differ (the spec's `message` of node
// segments; go-cqhttp's `messages` with `content`; NapCat's `messages` with `message`).
const senderSchema = z
  .object({ user_id: onebotIdSchema.optional(), nickname: z.string().optional(), card: z.string().optional() })
  .loose();
const getMsgAnswerSchema = z.object({ sender: senderSchema.optional(), message: onebotMessageSchema }).loose();
const forwardNodeSchema = z
  .object({
    sender: senderSchema.optional(),
    user_id: onebotIdSchema.optional(),
    nickname: z.string().optional(),
    name: z.string().optional(),
    content: onebotMessageSchema.optional(),
    message: onebotMessageSchema.optional(),
  })
  .loose();
const forwardAnswerSchema = z.union([
  z.object({ messages: z.array(z.unknown()) }).loose(),
  z.object({ message: z.array(z.unknown()) }).loose(),
  z.array(z.unknown()),
]);

/** One forward node (a node segment's data, or a message object) as sender and message. */
function nodeOf(raw: unknown): { sender: string; message: OneBotMessage } | null {
  const inner =
    raw && typeof raw === "object" && (raw as { type?: unknown }).type === "node"
      ? (raw as { data?: unknown }).data
      : raw;
  const node = forwardNodeSchema.safeParse(inner);
  if (!node.success) return null;
  const n = node.data;
  const message = n.content ?? n.message;
  if (message === undefined) return null;
  const sender = n.sender?.card || n.sender?.nickname || n.nickname || n.name || n.sender?.user_id || n.user_id || "?";
  return { sender, message };
}

function nodesOfAnswer(data: unknown): unknown[] {
  const answer = forwardAnswerSchema.safeParse(data);
  if (!answer.success) return [];
  const a = answer.data;
  if (Array.isArray(a)) return a;
  const list: unknown = Array.isArray(a.messages) ? a.messages : a.message;
  return Array.isArray(list) ? (list as unknown[]) : [];
}

/** Converts one message; the forward budget bounds its forward entries, nested ones included. */
class Converter {
  private readonly labels: Labels;
  private forwardBudget = MAX_FORWARD_ENTRIES;

  constructor(private readonly ctx: SegmentContext) {
    this.labels = LABELS[ctx.locale];
  }

  async convert(segments: OneBotSegment[], depth: number): Promise<MessageContent> {
    const out: MessageContent = {
      text: "",
      atBot: false,
      mentionsBot: undefined,
      replyTo: null,
      images: [],
      forward: null,
    };
    const parts: string[] = [];
    for (const segment of segments) {
      const part = await this.segment(segment, out, depth);
      if (part) parts.push(part);
    }
    const text = parts.join("").trim();
    out.text = clip(text, MAX_TEXT_CHARS, this.labels.truncated);
    return out;
  }

  /** The text a segment adds (and what else it sets on `out`). */
  private async segment(segment: OneBotSegment, out: MessageContent, depth: number): Promise<string> {
    const L = this.labels;
    const d = segment.data;
    switch (segment.type) {
      case "text":
        return str(d, "text");
      case "at": {
        const qq = str(d, "qq");
        if (qq === this.ctx.selfId) {
          // The @ of the bot says "to me": the flag carries it, the text needs no "@me".
          out.atBot = true;
          return "";
        }
        if (qq === "all") {
          out.mentionsBot = true;
          return `@${L.atAll} `;
        }
        return `@${str(d, "name") || this.ctx.nameOf?.(qq) || qq || "?"} `;
      }
      case "reply":
        return this.reply(str(d, "id"), out, depth);
      case "image": {
        const url = str(d, "url");
        const file = str(d, "file");
        if (url || file) addImage(out, { ...(url ? { url } : {}), ...(file ? { file } : {}) });
        const flash = str(d, "type") === "flash";
        return bracket(flash ? L.flash : L.image, str(d, "summary").replace(/^\[|\]$/g, "") || undefined);
      }
      case "mface": {
        const url = str(d, "url");
        if (url) addImage(out, { url });
        return bracket(L.sticker, str(d, "summary").replace(/^\[|\]$/g, "") || undefined);
      }
      case "face":
        return bracket(L.face, str(d, "faceText") || str(d, "text") || undefined);
      case "dice":
        return bracket(L.dice, str(d, "result") || undefined);
      case "rps":
        return bracket(L.rps);
      case "poke":
        return bracket(L.poke, str(d, "name") || undefined);
      case "shake":
        return bracket(L.shake);
      case "share":
        return bracket(L.share, [str(d, "title"), str(d, "url")].filter(Boolean).join(" ") || undefined);
      case "json":
      case "xml":
        return bracket(L.card, cardTitle(segment.type, str(d, "data")) ?? undefined);
      case "record":
        return bracket(L.record);
      case "video":
        return bracket(L.video);
      case "file":
        return bracket(L.file, str(d, "name") || str(d, "file") || undefined);
      case "location":
        return bracket(L.location, str(d, "title") || undefined);
      case "music":
        return bracket(L.music, str(d, "title") || undefined);
      case "contact":
        return bracket(str(d, "type") === "group" ? L.contactGroup : L.contactUser, str(d, "id") || undefined);
      case "forward":
        return this.forward(d, out, depth);
      case "anonymous":
        return "";
      default:
        return bracket(segment.type);
    }
  }

  /** A quote of the original: from the message store, else get_msg; nested replies only as the id. */
  private async reply(id: string, out: MessageContent, depth: number): Promise<string> {
    const L = this.labels;
    if (!id) return "";
    out.replyTo ??= id;
    if (depth > 0) return bracket(L.reply, L.someMessage);
    const quote = await this.quoteOf(id);
    if (!quote) return `${bracket(L.reply, L.someMessage)} `;
    if (quote.fromBot) out.mentionsBot = true;
    return `${bracket(L.reply, `${quote.sender}: ${clip(quote.text.replace(/\s+/g, " "), QUOTE_CHARS)}`)} `;
  }

  private async quoteOf(id: string): Promise<{ sender: string; text: string; fromBot: boolean } | null> {
    const { ctx } = this;
    const cached = await ctx.messages.get(ctx.sessionId, id).catch(() => null);
    if (cached) {
      return {
        sender: cached.groupCard || cached.userName,
        text: cached.text,
        fromBot: cached.direction === "outbound" || cached.userId === ctx.selfId,
      };
    }
    try {
      const data = await ctx.api.call("get_msg", { message_id: wireId(id) }, { timeoutMs: ctx.lookupTimeoutMs });
      const answer = getMsgAnswerSchema.parse(data);
      // The quote's own content without further lookups (no nested quote, no forward fetch).
      const inner = await new Converter(ctx).convert(segmentsOf(answer.message), MAX_FORWARD_DEPTH);
      const sender = answer.sender?.card || answer.sender?.nickname || answer.sender?.user_id || "?";
      return { sender, text: inner.text, fromBot: answer.sender?.user_id === ctx.selfId };
    } catch (e) {
      ctx.logger.warn(`[onebot] get_msg ${id} for a quote failed: ${e instanceof Error ? e.message : String(e)}`);
      return null;
    }
  }

  /** A merged forward: its nodes (inline content, else get_forward_msg), converted recursively and bounded. */
  private async forward(d: Record<string, unknown>, out: MessageContent, depth: number): Promise<string> {
    const L = this.labels;
    const entries = depth < MAX_FORWARD_DEPTH ? await this.forwardEntries(d, depth) : null;
    if (!entries) return bracket(L.forward);
    const label = bracket(L.forward, L.items(entries.length));
    if (depth === 0) {
      out.forward = [...(out.forward ?? []), ...entries];
      return label;
    }
    // Nested: the inner messages read as indented lines of the outer one.
    return `${label}\n${entries.map((e) => `  ${e.sender}: ${e.text.replace(/\n/g, "\n  ")}`).join("\n")}`;
  }

  private async forwardEntries(d: Record<string, unknown>, depth: number): Promise<ForwardEntry[] | null> {
    const { ctx } = this;
    let nodes: unknown[];
    if (Array.isArray(d.content)) {
      nodes = d.content;
    } else {
      const id = str(d, "id");
      if (!id) return null;
      try {
        nodes = nodesOfAnswer(await ctx.api.call("get_forward_msg", { id }, { timeoutMs: ctx.lookupTimeoutMs }));
      } catch (e) {
        ctx.logger.warn(`[onebot] get_forward_msg ${id} failed: ${e instanceof Error ? e.message : String(e)}`);
        return null;
      }
    }
    // This level's nodes take their share of the budget first, so nesting cannot starve them.
    const taken = nodes
      .map(nodeOf)
      .filter((node) => node !== null)
      .slice(0, this.forwardBudget);
    this.forwardBudget -= taken.length;
    const entries: ForwardEntry[] = [];
    for (const node of taken) {
      const inner = await this.convert(segmentsOf(node.message), depth + 1);
      entries.push({ sender: node.sender, text: clip(inner.text, MAX_ENTRY_CHARS) });
    }
    return entries.length ? entries : null;
  }
}

/** The content of a message's segments (text with placeholders, flags, quote, images, forward). */
export function contentOfSegments(segments: OneBotSegment[], ctx: SegmentContext): Promise<MessageContent> {
  return new Converter(ctx).convert(segments, 0);
}
