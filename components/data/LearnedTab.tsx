"use client";
// What the engine learned and from which messages, newest first, with undo (a new record removed, an
// updated one given its earlier values back; a record edited since answers a conflict).
import { useInfiniteQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { botData } from "../../lib/client/bot-data";
import { formatDateTime } from "../../lib/client/format";
import { useCanChange } from "../../lib/client/react/use-account";
import type { LearnedItemView } from "../../lib/data/schemas";
import type { dataTexts } from "../../lib/i18n/data";
import { Badge } from "../ui/Badge";
import { describeError, EmptyState, ErrorState, Loading } from "../ui/States";
import { ChatName } from "./ChatName";

type Texts = ReturnType<typeof dataTexts>;

/** The learned record in one line of text (word — meaning, the memory, the person's summary). */
function describe(item: LearnedItemView): string {
  const after = (item.after ?? {}) as Record<string, unknown>;
  const text = (key: string) => {
    const value = after[key];
    return typeof value === "string" ? value : "";
  };
  if (item.kind === "jargon") return `${text("word")} — ${text("meaning")}`;
  if (item.kind === "memory") return text("content");
  return `${text("personName")}: ${text("summary")}`;
}

export function LearnedTab({ t }: { t: Texts }) {
  const feed = useInfiniteQuery({
    queryKey: ["bot-data", "learned"],
    queryFn: ({ pageParam }) => botData.learned(pageParam),
    initialPageParam: undefined as string | undefined,
    getNextPageParam: (last) => last.nextCursor ?? undefined,
  });
  const queryClient = useQueryClient();
  const [message, setMessage] = useState<string | null>(null);
  // Viewers read: no undo.
  const canChange = useCanChange();

  const undo = async (item: LearnedItemView) => {
    try {
      const outcome = await botData.undoLearned(item.id);
      setMessage(outcome.ok ? null : `${outcome.conflict}: ${JSON.stringify(outcome.current.after)}`);
    } catch (e) {
      setMessage(describeError(e));
    }
    await queryClient.invalidateQueries({ queryKey: ["bot-data"] });
  };

  const items = feed.data?.pages.flatMap((p) => p.items) ?? [];
  return (
    <div className="data-tab" data-testid="data-tab-learned">
      {message && (
        <div className="state state-error" role="alert" data-testid="data-conflict">
          {message}
        </div>
      )}
      {feed.isPending && <Loading label="…" />}
      {feed.isError && <ErrorState title={t.loadError} error={feed.error} />}
      {feed.isSuccess && items.length === 0 && <EmptyState title={t.empty} />}
      {items.length > 0 && (
        <table className="table data-table">
          <thead>
            <tr>
              <th>{t.fields.updated}</th>
              <th>{t.learned.what}</th>
              <th>{t.learned.from}</th>
              <th />
            </tr>
          </thead>
          <tbody>
            {items.map((item) => (
              <tr key={item.id} data-testid="data-row" className={item.undoneAt ? "data-disabled" : ""}>
                <td className="sub">{formatDateTime(item.ts)}</td>
                <td>
                  <Badge tone="muted">{t.tabs[item.kind === "person" ? "persons" : item.kind === "memory" ? "memories" : "jargon"]}</Badge>{" "}
                  <Badge tone={item.action === "created" ? "ok" : "info"}>{t.learned[item.action]}</Badge> {describe(item)}
                </td>
                <td>
                  <ul className="data-sources">
                    {item.sources.map((s) => (
                      <li key={s.messageId}>
                        <span className="sub">{s.userName ?? s.messageId}</span> {s.text ?? ""}
                      </li>
                    ))}
                  </ul>
                  <span className="sub">
                    {t.learned.session} <ChatName sessionId={item.sessionId} />
                  </span>
                </td>
                <td className="data-actions">
                  {item.undoneAt ? (
                    <Badge tone="muted">{t.learned.undone}</Badge>
                  ) : (
                    canChange && (
                      <button className="btn btn-sm" onClick={() => void undo(item)}>
                        {t.learned.undo}
                      </button>
                    )
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {feed.hasNextPage && (
        <button className="btn btn-sm" onClick={() => void feed.fetchNextPage()}>
          {t.more}
        </button>
      )}
    </div>
  );
}
