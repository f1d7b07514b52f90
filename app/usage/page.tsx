import { preload } from "react-dom";
import { UsagePage } from "../../components/usage/UsagePage";
import { usageSeriesPath } from "../../lib/client/api";
import { presetParam, presetRange, type RangePreset } from "../../lib/client/usage-range";

// `?range=24h|7d|30d` opens the page on that preset (a link to the last 30 days draws them first).
export default async function Usage({ searchParams }: { searchParams: Promise<{ range?: string | string[] }> }) {
  const preset = presetParam((await searchParams).range) ?? "24h";
  preloadFirstSeries(preset);
  return <UsagePage initialPreset={preset} />;
}

/**
 * The charts' series preloaded from the HTML's head, before the bundle has loaded (the auth gate
 * renders the page itself only on the client): the first paint waits
 * for that answer, not for the bundle and then the answer (docs/performance.md). The client's first
 * query names the same range within the same minute (presets end at the next full one); a request
 * (server-rendered once per load of the page) made in another minute is simply not used.
 */
function preloadFirstSeries(preset: Exclude<RangePreset, "custom">): void {
  const { from, to, bucket } = presetRange(preset, Date.now());
  preload(usageSeriesPath({ from, to, by: "task", bucket }), { as: "fetch", crossOrigin: "anonymous" });
}
