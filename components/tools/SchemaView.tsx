"use client";
import { useState } from "react";
import { useT } from "../../lib/client/react/use-locale";
import { outlineSchema } from "../../lib/client/schema-outline";
import { HighlightText } from "../ui/HighlightText";
import { JsonView } from "../ui/JsonView";

/** Tool parameters as a readable table, with the raw JSON Schema a click away. */
export function SchemaView({ schema, query = "" }: { schema: Record<string, unknown> | undefined; query?: string }) {
  const t = useT();
  const [raw, setRaw] = useState(false);
  const rows = outlineSchema(schema);
  return (
    <div className="schema">
      {rows.length === 0 ? (
        <div className="muted schema-none">{t("schema.none")}</div>
      ) : (
        <table className="schema-table">
          <tbody>
            {rows.map((r) => (
              <tr key={r.path}>
                <td className="mono schema-name" style={{ paddingLeft: 6 + r.depth * 14 }}>
                  <HighlightText text={r.name} query={query} />
                  {r.required && (
                    <span className="req" title={t("run.required")}>
                      *
                    </span>
                  )}
                </td>
                <td className="mono schema-type">{r.type}</td>
                <td className="schema-desc">
                  <HighlightText text={r.description} query={query} />
                  {r.constraints.length > 0 && <span className="schema-cons"> {r.constraints.join(" · ")}</span>}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {schema && (
        <button type="button" className="linkish" onClick={() => setRaw(!raw)} aria-expanded={raw}>
          {t(raw ? "schema.hide" : "schema.show")}
        </button>
      )}
      {raw && <JsonView value={schema} query={query} maxHeight={320} />}
    </div>
  );
}
