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
  return <SessionReplay sessionId={decodeURIComponent(id)} cycle={typeof cycle === "string" ? cycle : undefined} />;
}
