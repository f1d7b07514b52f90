"use client";
// /data: the bot's data the builtin tools read, in tabs (memories, jargon, persons, emojis, learned).
import { useState } from "react";
import { formatDateTime } from "../../lib/client/format";
import { useLocale } from "../../lib/client/react/use-locale";
import { dataTexts } from "../../lib/i18n/data";
import { EmojisTab } from "./EmojisTab";
import { LearnedTab } from "./LearnedTab";
import { ChatName } from "./ChatName";
import { RecordTab, type TabSpec } from "./RecordTab";

const memories: TabSpec<"memories"> = {
  resource: "memories",
  filters: true,
  idOf: (m) => m.id,
  fields: [
    { key: "content", kind: "textarea" },
    { key: "personName", kind: "text", nullable: true },
  ],
  columns: [
    { label: "ts", cell: (m) => formatDateTime(m.ts), className: "sub data-nowrap" },
    { label: "personName", cell: (m) => m.personName ?? "" },
    { label: "content", cell: (m) => m.content, className: "data-text" },
  ],
};

const jargon: TabSpec<"jargon"> = {
  resource: "jargon",
  idOf: (j) => j.id,
  fields: [
    { key: "word", kind: "text" },
    { key: "meaning", kind: "textarea" },
    { key: "examples", kind: "lines" },
  ],
  columns: [
    { label: "word", cell: (j) => j.word },
    { label: "meaning", cell: (j) => j.meaning, className: "data-text" },
    { label: "examples", cell: (j) => j.examples.join(" / "), className: "data-text" },
    { label: "count", cell: (j) => j.count, className: "num" },
    // The same word learned in two chats is two entries: the chat tells them apart.
    { label: "chat", cell: (j) => <ChatName sessionId={j.sessionId} />, className: "data-nowrap" },
  ],
};

const persons: TabSpec<"persons"> = {
  resource: "persons",
  idOf: (p) => p.id,
  fields: [
    { key: "name", kind: "text" },
    { key: "userId", kind: "text", nullable: true },
    { key: "summary", kind: "textarea" },
    { key: "traits", kind: "tags" },
    { key: "facts", kind: "lines" },
  ],
  columns: [
    { label: "name", cell: (p) => p.name },
    { label: "summary", cell: (p) => p.summary, className: "data-text" },
    { label: "traits", cell: (p) => p.traits.join(", ") },
    { label: "facts", cell: (p) => p.facts.join(" / "), className: "data-text" },
  ],
};

type Tab = "memories" | "jargon" | "persons" | "emojis" | "learned";
const TABS: Tab[] = ["memories", "jargon", "persons", "emojis", "learned"];

export function DataPage() {
  const [tab, setTab] = useState<Tab>("memories");
  const { locale } = useLocale();
  const t = dataTexts(locale);
  return (
    <div className="page">
      <div className="page-head">
        <h1>{t.title}</h1>
      </div>
      <div className="seg data-tabs" role="tablist">
        {TABS.map((id) => (
          <button
            key={id}
            role="tab"
            aria-selected={tab === id}
            className={tab === id ? "active" : ""}
            onClick={() => setTab(id)}
            data-testid={`data-tab-button-${id}`}
          >
            {t.tabs[id]}
          </button>
        ))}
      </div>
      {tab === "memories" && <RecordTab key="memories" spec={memories} t={t} />}
      {tab === "jargon" && <RecordTab key="jargon" spec={jargon} t={t} />}
      {tab === "persons" && <RecordTab key="persons" spec={persons} t={t} />}
      {tab === "emojis" && <EmojisTab t={t} />}
      {tab === "learned" && <LearnedTab t={t} />}
    </div>
  );
}
