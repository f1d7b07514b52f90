// Reads a 400 asking for reasoning data the request left out of an earlier tool-call message, as the
// providers phrase it, also relayed by an OpenAI-compatible proxy (one-api / new-api) of kind generic:
// DeepSeek thinking mode ("The `reasoning_content` in the thinking mode must be passed back to the
// API.") and Gemini's OpenAI-compatible API ("Function call is missing a thought_signature in
// functionCall parts. ..."; Vertex: "... is missing a 'thought_signature'").
import type { PassBackField } from "../../../lib/llm/endpoints";

/** Asks for reasoning_content; never DeepSeek-R1's opposite ("reasoning_content is not allowed …"). */
const REASONING_NEEDED =
  /reasoning_content\W+(?:\w+\W+){0,8}?(must be passed back|is required|is missing)|missing\W+(?:\w+\W+){0,3}reasoning_content/i;

const SIGNATURE_NEEDED =
  /missing\W+(?:\w+\W+){0,3}thought[_ ]?signature|thought[_ ]?signature\W+(?:\w+\W+){0,3}?(missing|required)/i;

/** The field a rejection asks to be sent back, else null. `text`: the error's message and body. */
export function missingPassBack(status: number | undefined, text: string): PassBackField | null {
  if (status !== 400 && status !== 422) return null;
  if (REASONING_NEEDED.test(text)) return "reasoning_content";
  if (SIGNATURE_NEEDED.test(text)) return "extra_content";
  return null;
}
