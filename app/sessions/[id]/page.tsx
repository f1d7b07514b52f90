import { SessionLive } from "../../../components/session-live/SessionLive";

export default async function SessionPage({ params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  return <SessionLive sessionId={decodeURIComponent(id)} />;
}
