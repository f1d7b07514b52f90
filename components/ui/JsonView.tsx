// JSON shown as text (never HTML), with search highlighting.
import { prettyJson } from "../../lib/client/format";
import { HighlightText } from "./HighlightText";

export function JsonView({ value, query = "", maxHeight }: { value: unknown; query?: string; maxHeight?: number }) {
  return (
    <pre className="json" style={maxHeight ? { maxHeight } : undefined}>
      <HighlightText text={typeof value === "string" ? value : prettyJson(value)} query={query} />
    </pre>
  );
}
