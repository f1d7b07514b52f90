import { SessionReplay } from "../../../../components/replay/SessionReplay";

export default async function ReplayPage({
  params,
  searchParams,
}: {
  params: Promise<{ id: string }>;
  searchParams: Promise<{ cycle?: string | string[] }>;
}) {
  const { id } = await params;
  const { cycle } = await searchParams;
  const sessionId = decodeURIComponent(id);
  // Keyed: a re-run or fork opens its own replay from this one, and starts fresh (playhead, deep links).
  return <SessionReplay key={sessionId} sessionId={sessionId} cycle={typeof cycle === "string" ? cycle : undefined} />;
}
