import { SessionAnalytics } from "../../../../components/analytics/SessionAnalytics";

export default async function SessionAnalyticsPage({ params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  return <SessionAnalytics sessionId={decodeURIComponent(id)} />;
}
