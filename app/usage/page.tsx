import { UsagePage } from "../../components/usage/UsagePage";
import { presetParam } from "../../lib/client/usage-range";

// `?range=24h|7d|30d` opens the page on that preset (a link to the last 30 days draws them first).
export default async function Usage({ searchParams }: { searchParams: Promise<{ range?: string | string[] }> }) {
  const { range } = await searchParams;
  return <UsagePage initialPreset={presetParam(range) ?? undefined} />;
}
