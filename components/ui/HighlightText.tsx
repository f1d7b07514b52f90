// Plain text with the search query (or the given [start, end) ranges) marked; React escapes every piece.
import { splitMatches, type TextPiece } from "../../lib/client/text-search";

function piecesOf(text: string, marks: readonly (readonly [number, number])[]): TextPiece[] {
  const pieces: TextPiece[] = [];
  let at = 0;
  for (const [start, end] of marks) {
    if (start < at || end <= start || end > text.length) continue;
    if (start > at) pieces.push({ text: text.slice(at, start), match: false });
    pieces.push({ text: text.slice(start, end), match: true });
    at = end;
  }
  if (at < text.length) pieces.push({ text: text.slice(at), match: false });
  return pieces;
}

export function HighlightText({
  text,
  query = "",
  marks,
}: {
  text: string;
  query?: string;
  marks?: readonly (readonly [number, number])[];
}) {
  if (!marks && !query.trim()) return <>{text}</>;
  return (
    <>
      {(marks ? piecesOf(text, marks) : splitMatches(text, query)).map((p, i) =>
        p.match ? <mark key={i}>{p.text}</mark> : <span key={i}>{p.text}</span>,
      )}
    </>
  );
}
