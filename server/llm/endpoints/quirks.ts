// What each provider kind needs on the wire, in one place: the output-limit parameter's name and
// which stored reasoning data goes back to it. The engine stores everything the model returned;
// prepareMessages applies the endpoint's rule to each request, widened by what a model's rejections
// taught (a thinking model behind a proxy of kind generic).
import type { EndpointKind, PassBackField } from "../../../lib/llm/endpoints";
import type { LlmMessage } from "../../../lib/llm/messages";

export type TokenLimitParam = "max_tokens" | "max_completion_tokens";

/** o1/o3/o4 and the gpt-5 family, also behind a router prefix such as "openai/o3-mini". */
export function isOpenAiReasoningModel(model: string): boolean {
  const bare = model.slice(model.lastIndexOf("/") + 1).toLowerCase();
  return /^(o\d|gpt-5)/.test(bare);
}

/** OpenAI documents max_tokens as deprecated (and rejected by reasoning models) in favour of max_completion_tokens. */
export function defaultTokenLimitParam(kind: EndpointKind, model: string): TokenLimitParam {
  return kind === "openai" || isOpenAiReasoningModel(model) ? "max_completion_tokens" : "max_tokens";
}

/** Legacy DeepSeek-R1 API: reasoning_content in a request is a 400. */
function isDeepSeekReasoner(model: string): boolean {
  return /deepseek-reasoner/i.test(model);
}

interface ReasoningRule {
  /** reasoning_content kept on assistant messages that made tool calls (DeepSeek thinking mode requires it). */
  reasoningOnToolCalls: boolean;
  /** Tool calls' extra_content (Gemini thought signatures) kept. */
  extraContent: boolean;
}

function reasoningRule(kind: EndpointKind, model: string): ReasoningRule {
  switch (kind) {
    case "deepseek":
      return { reasoningOnToolCalls: !isDeepSeekReasoner(model), extraContent: false };
    case "gemini":
      return { reasoningOnToolCalls: false, extraContent: true };
    case "openrouter":
      // Routes to Gemini as well; unknown fields are passed through or ignored.
      return { reasoningOnToolCalls: false, extraContent: true };
    default:
      return { reasoningOnToolCalls: false, extraContent: false };
  }
}

/**
 * `learned`: the fields this model asked for with a 400. A learned reasoning_content goes on every
 * assistant message, empty where none was recorded (a turn the model did not think aloud, one another
 * model answered): the provider checks that the field is there, and its guide says it is ignored on
 * turns without tool calls, so those carry it too rather than be refused once more.
 */
export function prepareMessages(
  kind: EndpointKind,
  model: string,
  messages: LlmMessage[],
  learned: ReadonlySet<PassBackField> = new Set(),
): LlmMessage[] {
  const rule = reasoningRule(kind, model);
  const reasoningAlways = learned.has("reasoning_content");
  const extraContent = rule.extraContent || learned.has("extra_content");
  return messages.map((m) => {
    if (m.role !== "assistant") return m;
    const { reasoning_content, tool_calls, ...rest } = m;
    const out: LlmMessage = { ...rest };
    if (tool_calls?.length) {
      out.tool_calls = tool_calls.map(({ extra_content, ...call }) =>
        extraContent && extra_content ? { ...call, extra_content } : call,
      );
      if (rule.reasoningOnToolCalls && reasoning_content) out.reasoning_content = reasoning_content;
    }
    if (reasoningAlways) out.reasoning_content = reasoning_content ?? "";
    return out;
  });
}
