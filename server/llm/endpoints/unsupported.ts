// Reads a 400 that rejects a request parameter, as providers phrase it: OpenAI ("Unsupported
// parameter: 'max_tokens' ...", param "max_tokens"), vLLM/pydantic ("Extra inputs are not
// permitted", loc [..., "stream_options"]), serde-based servers ("unknown field `stream_options`"),
// Azure ("Unrecognized request argument supplied: stream_options"), "streaming is not supported".
import type { DroppableParam } from "../../../lib/llm/endpoints";

const REJECTION =
  /unsupported|not supported|unrecognized|unknown (field|parameter|argument)|not allowed|not permitted|extra inputs|does not support|invalid (parameter|argument|field)/i;

/** Longest first, so "stream_options" is found before "stream". */
const NAMES: DroppableParam[] = [
  "max_completion_tokens",
  "stream_options",
  "tool_choice",
  "temperature",
  "max_tokens",
  "stream",
];

/**
 * The parameter (among those sent) that a rejection names, else null. `param` is OpenAI's error
 * field; `text` everything else of the error (message and body).
 */
export function rejectedParam(
  status: number | undefined,
  param: unknown,
  text: string,
  sent: ReadonlySet<DroppableParam>,
): DroppableParam | null {
  if (status !== 400 && status !== 422) return null;
  if (typeof param === "string" && sent.has(param as DroppableParam)) return param as DroppableParam;
  if (!REJECTION.test(text)) return null;
  for (const name of NAMES) {
    if (!sent.has(name)) continue;
    // A word of its own: "stream" must not match inside "stream_options" or "upstream".
    if (new RegExp(`(^|[^A-Za-z_])${name}($|[^A-Za-z_])`).test(text)) return name;
    if (name === "stream" && /\bstreaming\b/i.test(text)) return name;
  }
  return null;
}
