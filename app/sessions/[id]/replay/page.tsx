import { SessionReplay } from "../../../../components/replay/SessionReplay";

export default async function ReplayPage({ params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  return <SessionReplay sessionId={decodeURIComponent(id)} />;
}
