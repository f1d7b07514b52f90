// Which provider an endpoint is, from its base URL when config does not say: hosted APIs by host,
// local servers by their default port.
import type { EndpointKind } from "../../../lib/llm/endpoints";

const HOSTS: [RegExp, EndpointKind][] = [
  [/(^|\.)openai\.com$/, "openai"],
  [/(^|\.)deepseek\.com$/, "deepseek"],
  [/^generativelanguage\.googleapis\.com$/, "gemini"],
  [/(^|\.)siliconflow\.(cn|com)$/, "siliconflow"],
  [/(^|\.)openrouter\.ai$/, "openrouter"],
];

const PORTS: Record<string, EndpointKind> = { "11434": "ollama", "8000": "vllm", "8080": "llamacpp" };

export function detectKind(baseUrl: string): EndpointKind {
  let url: URL;
  try {
    url = new URL(baseUrl);
  } catch {
    return "generic";
  }
  const host = url.hostname.toLowerCase();
  for (const [pattern, kind] of HOSTS) if (pattern.test(host)) return kind;
  return PORTS[url.port] ?? "generic";
}
