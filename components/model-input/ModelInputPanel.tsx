"use client";
// "What the model saw": the exact messages and tool definitions sent to the timing gate and the
// planner in one cycle, searchable and copyable, with the tools that were withheld and why.
import { useCallback, useMemo, useState } from "react";
import type { ModelAnswer, ModelRequest, PlannerFinalizedData } from "../../lib/events/schemas";
import type { LlmMessage } from "../../lib/llm/messages";
import { prettyJson } from "../../lib/client/format";
import { useT } from "../../lib/client/react/use-locale";
import { countMatches, filterWithheld, messageSearchText } from "../../lib/client/text-search";
import { SchemaView } from "../tools/SchemaView";
import { Badge } from "../ui/Badge";
import { CopyButton } from "../ui/CopyButton";
import { HighlightText } from "../ui/HighlightText";

type Target = "planner" | "gate";

const WITHHELD_REASONS = new Set(["deferred", "hidden", "disabled", "timing_only", "duplicate"] as const);
type WithheldReason = typeof WITHHELD_REASONS extends Set<infer R> ? R : never;
const isKnownReason = (r: string): r is WithheldReason => (WITHHELD_REASONS as Set<string>).has(r);

export function ModelInputPanel({ data }: { data: PlannerFinalizedData }) {
  const t = useT();
  const help = useCallback((reason: string) => (isKnownReason(reason) ? t(`modelInput.withheld.${reason}`) : ""), [t]);
  const gateRequest = data.timingGate?.request ?? null;
  const [target, setTarget] = useState<Target>(data.request ? "planner" : "gate");
  const [query, setQuery] = useState("");
  const request = target === "planner" ? data.request : gateRequest;
  const answer = target === "planner" ? data.planner?.answeredBy : data.timingGate?.result.answeredBy;
  const withheld = useMemo(() => filterWithheld(data.withheldTools, query, help), [data.withheldTools, query, help]);
  const q = query.trim();

  return (
    <section className="model-input" aria-label={t("modelInput.title")}>
      <div className="mi-bar">
        <div className="seg" role="tablist" aria-label={t("modelInput.request")}>
          <button
            role="tab"
            aria-selected={target === "planner"}
            className={target === "planner" ? "active" : ""}
            disabled={!data.request}
            onClick={() => setTarget("planner")}
          >
            {t("modelInput.planner")}
          </button>
          <button
            role="tab"
            aria-selected={target === "gate"}
            className={target === "gate" ? "active" : ""}
            disabled={!gateRequest}
            onClick={() => setTarget("gate")}
          >
            {t("modelInput.gate")}
          </button>
        </div>
        <input
          className="input input-sm"
          type="search"
          placeholder={t("modelInput.search")}
          value={query}
          onChange={(e) => setQuery(e.target.value)}
          aria-label={t("modelInput.searchLabel")}
        />
        <span className="grow" />
        {request && <CopyButton text={() => prettyJson(request)} label={t("modelInput.copyRequest")} />}
        <CopyButton text={() => prettyJson(data)} label={t("modelInput.copyCycle")} />
      </div>
      {request ? (
        <RequestView request={request} answer={answer} query={query} />
      ) : (
        <div className="muted pad">
          {t(target === "gate" ? "modelInput.noRequestGate" : "modelInput.noRequestPlanner")}
        </div>
      )}
      {target === "planner" && data.withheldTools.length > 0 && (
        <div className="mi-block">
          <div className="mi-title">
            {t("modelInput.withheldTitle", {
              count: q
                ? t("modelInput.matchCount", { shown: withheld.length, total: data.withheldTools.length })
                : data.withheldTools.length,
            })}
          </div>
          <ul className="withheld" data-testid="withheld-tools">
            {withheld.map((w) => (
              <li key={`${w.name}:${w.reason}`}>
                <span className="mono">
                  <HighlightText text={w.name} query={query} />
                </span>
                <Badge tone={w.reason === "disabled" ? "bad" : "muted"} title={help(w.reason)}>
                  {w.reason}
                </Badge>
                <span className="muted small">{help(w.reason)}</span>
              </li>
            ))}
          </ul>
        </div>
      )}
    </section>
  );
}

function RequestView({
  request,
  answer,
  query,
}: {
  request: ModelRequest;
  /** Who answered it: named when it was not the model asked (a fallback, a dated version). */
  answer: ModelAnswer | undefined;
  query: string;
}) {
  const t = useT();
  const q = query.trim();
  const messages = useMemo(
    () =>
      request.messages
        .map((m, i) => ({ m, i, hits: q ? countMatches(messageSearchText(m), q) : 0 }))
        .filter((x) => !q || x.hits > 0),
    [request.messages, q],
  );
  const tools = useMemo(
    () =>
      request.tools.filter(
        (tool) =>
          !q ||
          countMatches(
            `${tool.function.name}\n${tool.function.description}\n${JSON.stringify(tool.function.parameters)}`,
            q,
          ) > 0,
      ),
    [request.tools, q],
  );
  return (
    <>
      <div className="mi-meta muted">
        {t("modelInput.model")} <span className="mono">{request.model}</span>
        {answer && (answer.fallback || (answer.responseModel ?? answer.model) !== request.model) && (
          <span data-testid="mi-answered-by">
            {t("modelInput.answeredBy", { model: answer.responseModel ?? answer.model, endpoint: answer.endpoint })}
          </span>
        )}{" "}
        · {t("modelInput.historySelected", { count: request.selectedHistoryCount })}
        {request.maxTokens !== null && t("modelInput.maxTokens", { count: request.maxTokens })}
        {request.promptVersion && (
          <>
            {" · "}
            <span data-testid="prompt-version" title={request.promptVersion.overrides.join(", ")}>
              {t("modelInput.promptVersion", {
                version: request.promptVersion.settingsVersion,
                overrides: request.promptVersion.overrides.length
                  ? request.promptVersion.overrides.join(", ")
                  : t("modelInput.noOverrides"),
                hash: request.promptVersion.hash,
              })}
            </span>
          </>
        )}
      </div>
      <div className="mi-block">
        <div className="mi-title">
          {t("modelInput.messages", {
            count: q
              ? t("modelInput.matchCount", { shown: messages.length, total: request.messages.length })
              : request.messages.length,
          })}
          <CopyButton text={() => prettyJson(request.messages)} label={t("modelInput.copy")} />
        </div>
        <ol className="mi-messages">
          {messages.map(({ m, i }) => (
            <MessageRow key={i} index={i} message={m} query={q} />
          ))}
        </ol>
      </div>
      <div className="mi-block">
        <div className="mi-title">
          {t("modelInput.toolsOffered", {
            count: q
              ? t("modelInput.matchCount", { shown: tools.length, total: request.tools.length })
              : request.tools.length,
          })}
          <CopyButton text={() => prettyJson(request.tools)} label={t("modelInput.copy")} />
        </div>
        {request.tools.length === 0 && <div className="muted">{t("modelInput.noTools")}</div>}
        <ul className="mi-tools" data-testid="offered-tools">
          {tools.map((tool) => (
            <li key={tool.function.name} data-tool={tool.function.name}>
              <details open={q.length > 0}>
                <summary>
                  <span className="mono">
                    <HighlightText text={tool.function.name} query={q} />
                  </span>{" "}
                  <span className="muted">
                    <HighlightText text={firstLine(tool.function.description)} query={q} />
                  </span>
                </summary>
                <div className="text small">
                  <HighlightText text={tool.function.description} query={q} />
                </div>
                <SchemaView schema={tool.function.parameters} query={q} />
              </details>
            </li>
          ))}
        </ul>
      </div>
    </>
  );
}

function MessageRow({ index, message, query }: { index: number; message: LlmMessage; query: string }) {
  const t = useT();
  const body = contentText(message);
  const [open, setOpen] = useState(false);
  const long = body.length > 600 || body.split("\n").length > 10;
  return (
    <li className={`mi-msg role-${message.role}`}>
      <div className="mi-msg-head">
        <span className="mono muted">#{index}</span>
        <Badge
          tone={
            message.role === "system"
              ? "accent"
              : message.role === "assistant"
                ? "info"
                : message.role === "tool"
                  ? "warn"
                  : "neutral"
          }
        >
          {message.role}
        </Badge>
        {message.role === "tool" && <span className="mono muted">{message.tool_call_id}</span>}
      </div>
      {body && (
        <div className={`text mi-msg-body${long && !open && !query ? " clamp-10" : ""}`}>
          <HighlightText text={body} query={query} />
        </div>
      )}
      {long && !query && (
        <button type="button" className="linkish" onClick={() => setOpen(!open)}>
          {t(open ? "modelInput.collapse" : "modelInput.showAll")}
        </button>
      )}
      {message.role === "assistant" && message.reasoning_content && (
        <details>
          <summary className="muted">{t("modelInput.reasoning")}</summary>
          <div className="text">
            <HighlightText text={message.reasoning_content} query={query} />
          </div>
        </details>
      )}
      {message.role === "assistant" &&
        (message.tool_calls ?? []).map((c) => (
          <div key={c.id} className="mono small mi-call">
            → <HighlightText text={c.function.name} query={query} />(
            <HighlightText text={c.function.arguments} query={query} />)
          </div>
        ))}
    </li>
  );
}

function contentText(message: LlmMessage): string {
  if (message.content === null) return "";
  if (typeof message.content === "string") return message.content;
  return message.content
    .map((p) => (p.type === "text" ? p.text : `[image ${p.image_url.url.slice(0, 60)}…]`))
    .join("\n");
}

function firstLine(text: string): string {
  const line = text.split("\n")[0];
  return line.length > 90 ? `${line.slice(0, 88)}…` : line;
}
