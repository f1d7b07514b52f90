// One side of a diffed text: changed runs marked, the rest plain. Always text nodes, never HTML: the
// texts are what models and chat users wrote.
import type { TextPart } from "../../lib/rerun/normalize";

export function DiffText({ text, parts, side }: { text: string | null; parts?: TextPart[]; side: "a" | "b" }) {
  if (text === null) return null;
  if (!parts) return <>{text}</>;
  const Tag = side === "a" ? "del" : "ins";
  return (
    <>
      {parts.map((p, i) =>
        p.changed ? (
          <Tag key={i} className="diff-mark">
            {p.text}
          </Tag>
        ) : (
          <span key={i}>{p.text}</span>
        ),
      )}
    </>
  );
}
