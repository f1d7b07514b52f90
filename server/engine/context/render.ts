// Renders one history message as the chat message sent to the model
// (docs/engine-rules.md#rendering). Returns null for what cannot be rendered, which selection then skips.
// The history's entries are immutable, and so is their rendering: each is rendered once per options
// and shared (frozen) by every request that sends it, and by the recording of that request.
import type { ChatImage } from "../../../lib/chat/images";
import { frozen, isImmutable } from "../../../lib/json/frozen";
import type { LlmContentPart, LlmMessage } from "../../../lib/llm/messages";
import { complexPreview, plannerPrefix, type TimeZoneSpec } from "../../../lib/chat/prefix";
import type { ComplexSessionMessage, HistoryMessage, SessionBackedMessage, ToolMediaMessage } from "./messages";

export interface RenderOptions {
  /** Attach chat images and tool-returned images for vision models. */
  vision?: boolean;
  /** Zone for the prefix clock; the process's local zone when omitted. */
  tz?: TimeZoneSpec;
}

type AssistantLlmMessage = Extract<LlmMessage, { role: "assistant" }>;

const REFERENCE_PREFIX = "[参考消息]";

/** The text stand-in for a tool media item; the id matches the `[工具返回媒体索引]` lines. */
function toolMediaPlaceholder(m: ToolMediaMessage): string {
  return `[工具返回媒体] tool_result:${m.toolCallId}:${m.index} ${m.mimeType} ${m.description}`.trimEnd();
}

function speaker(m: SessionBackedMessage | ComplexSessionMessage) {
  return { time: m.ts, userName: m.userName, groupCard: m.groupCard, messageId: m.messageId };
}

/** What an image-only message says in text (the models without vision see only this). */
const IMAGE_PLACEHOLDER = "[图片]";

/** Urls a model endpoint can fetch or read inline. */
const MODEL_READABLE_URL = /^(https?:|data:image\/)/i;

/**
 * A user message's content: the text, followed by an image_url part per image with a url the model
 * can read (a vision request); just the text when there is none.
 */
export function withImages(text: string, images: readonly ChatImage[] | undefined): string | LlmContentPart[] {
  const urls = (images ?? []).map((i) => i.url).filter((u): u is string => !!u && MODEL_READABLE_URL.test(u));
  if (urls.length === 0) return text;
  return [{ type: "text", text }, ...urls.map((url) => ({ type: "image_url" as const, image_url: { url } }))];
}

/** False exactly where renderHistoryMessage returns null, without rendering (selection asks per message). */
export function isRenderable(m: HistoryMessage): boolean {
  switch (m.kind) {
    case "session":
      return m.text !== "" || !!m.images?.length;
    case "reference":
    case "tool_result":
      return m.content !== "";
    case "assistant":
      return m.content !== "" || m.toolCalls.length > 0;
    case "complex":
    case "tool_media":
      return true;
  }
}

/** The last rendering of each immutable history entry, with the options it was rendered with. */
const renderings = new WeakMap<
  HistoryMessage,
  { vision: boolean; tz: TimeZoneSpec | undefined; message: LlmMessage }
>();

export function renderHistoryMessage(m: HistoryMessage, options: RenderOptions = {}): LlmMessage | null {
  if (!isRenderable(m)) return null;
  if (!isImmutable(m)) return render(m, options);
  const vision = options.vision === true;
  const hit = renderings.get(m);
  if (hit && hit.vision === vision && hit.tz === options.tz) return hit.message;
  const message = frozen(render(m, options));
  renderings.set(m, { vision, tz: options.tz, message });
  return message;
}

function render(m: HistoryMessage, options: RenderOptions): LlmMessage {
  switch (m.kind) {
    case "session": {
      const text = plannerPrefix({ ...speaker(m), text: m.text || IMAGE_PLACEHOLDER }, options.tz);
      return { role: "user", content: options.vision ? withImages(text, m.images) : text };
    }
    case "complex":
      return {
        role: "user",
        content: complexPreview({ ...speaker(m), preview: m.preview, total: m.total }, options.tz),
      };
    case "reference":
      return { role: "user", content: `${REFERENCE_PREFIX}${m.content}` };
    case "assistant": {
      const out: AssistantLlmMessage = { role: "assistant", content: m.content === "" ? null : m.content };
      if (m.toolCalls.length > 0) out.tool_calls = m.toolCalls;
      if (m.reasoningContent) out.reasoning_content = m.reasoningContent;
      return out;
    }
    case "tool_result":
      return { role: "tool", tool_call_id: m.toolCallId, content: m.content };
    case "tool_media": {
      const text = toolMediaPlaceholder(m);
      // Only images can go in an image_url part; other media stay as their placeholder.
      if (!options.vision || !m.data || !m.mimeType.startsWith("image/")) return { role: "user", content: text };
      const parts: LlmContentPart[] = [
        { type: "text", text },
        { type: "image_url", image_url: { url: `data:${m.mimeType};base64,${m.data}` } },
      ];
      return { role: "user", content: parts };
    }
  }
}
