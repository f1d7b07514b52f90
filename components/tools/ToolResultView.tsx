"use client";
// A tool's result, all as text: its content, its structured content (collapsible JSON), images from
// data: URLs only, resources with their uri and text (lib/client/tool-result.ts).
import { useT } from "../../lib/client/react/use-locale";
import { resultView } from "../../lib/client/tool-result";
import type { ToolExecutionResult } from "../../lib/tools/schemas";
import { Badge } from "../ui/Badge";

export function ToolResultView({ result }: { result: ToolExecutionResult }) {
  const t = useT();
  const view = resultView(result);
  return (
    <section
      className="tool-result"
      aria-label={t("result.label")}
      data-testid="run-result"
      data-success={view.success}
      aria-live="polite"
    >
      <div className="tool-run-head">
        <Badge tone={view.success ? "ok" : "bad"}>{t(view.success ? "result.success" : "result.failed")}</Badge>
      </div>
      {view.error && <pre className="text bad-text">{view.error}</pre>}
      {view.text && (
        <pre className="text" data-testid="run-result-text">
          {view.text}
        </pre>
      )}
      {view.parts.map((part, i) => {
        switch (part.kind) {
          case "text":
            return (
              <pre key={i} className="text">
                {part.text}
              </pre>
            );
          case "image":
            return <img key={i} className="tool-result-image" src={part.src} alt={part.alt} />;
          case "resource":
            return (
              <div key={i} className="tool-result-resource">
                <div className="mono small">
                  {part.uri}
                  {part.mimeType && <span className="muted"> ({part.mimeType})</span>}
                </div>
                {part.name && <div className="small">{part.name}</div>}
                {part.text && <pre className="text">{part.text}</pre>}
              </div>
            );
          case "other":
            return (
              <div key={i} className="muted small">
                {t("result.other", {
                  type: part.contentType,
                  mime: part.mimeType ? ` (${part.mimeType})` : "",
                  bytes: part.bytes,
                })}
              </div>
            );
        }
      })}
      {view.structured !== null && (
        <details>
          <summary>{t("result.structured")}</summary>
          <pre className="json">{view.structured}</pre>
        </details>
      )}
    </section>
  );
}
