// The cluster page as rendered markup of the real component with a GET /api/cluster answer in the
// query cache: a row per node (this node first, then live, then gone) with its state, sessions and
// lease age marked late or expired against the lease time; a single process says how to make a
// cluster; both locales.
import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { createElement } from "react";
import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, it } from "vitest";
import { ClusterPanel } from "../../components/cluster/ClusterPanel";
import { clusterSchema, type ClusterStatus } from "../../lib/api/cluster";
import { clusterTotals, leaseHealth } from "../../lib/client/cluster";
import { queryKeys } from "../../lib/client/query-keys";
import { LocaleProvider } from "../../lib/client/react/use-locale";
import type { Locale } from "../../lib/i18n/messages";

function render(answer: ClusterStatus, locale: Locale = "en"): string {
  const client = new QueryClient({ defaultOptions: { queries: { staleTime: Infinity, retry: false } } });
  client.setQueryData(queryKeys.cluster, clusterSchema.parse(answer));
  const panel = createElement(LocaleProvider, {
    initial: locale,
    hasCookie: true,
    children: createElement(ClusterPanel),
  });
  return renderToStaticMarkup(createElement(QueryClientProvider, { client }, panel));
}

const node = (id: string, over: Partial<ClusterStatus["nodes"][number]> = {}): ClusterStatus["nodes"][number] => ({
  id,
  url: `http://10.0.0.${id.slice(-1)}:3000`,
  sessions: 0,
  leaseAgeMs: null,
  state: "live",
  lastSeenMs: 500,
  startedAt: Date.UTC(2026, 11, 1, 8),
  self: false,
  ...over,
});

const THREE: ClusterStatus = {
  mode: "cluster",
  leaseTtlMs: 6_000,
  unowned: 2,
  placesOn: ["node-2", "node-1"],
  nodes: [
    node("node-3", { state: "gone", sessions: 4, leaseAgeMs: 9_000, lastSeenMs: 9_000 }),
    node("node-2", { sessions: 7, leaseAgeMs: 4_500 }),
    node("node-1", { self: true, sessions: 5, leaseAgeMs: 1_200 }),
  ],
};

const rows = (html: string) => [
  ...html.matchAll(/data-testid="cluster-node" data-node-id="([^"]+)" data-state="(\w+)"/g),
];

describe("ClusterPanel", () => {
  it("lists every node, this one first, with its state, sessions and how fresh its leases are", () => {
    const html = render(THREE);
    expect(rows(html).map(([, id, state]) => `${id}:${state}`)).toEqual(["node-1:live", "node-2:live", "node-3:gone"]);
    expect(html).toContain("this node");
    expect(
      [...html.matchAll(/data-testid="lease-age" data-health="(\w+)"[^>]*>([^<]+)</g)].map((m) => [m[1], m[2]]),
    ).toEqual([
      ["fresh", "1.20 s"],
      ["late", "4.50 s"],
      ["expired", "9.00 s"],
    ]);
    expect(html).toContain("Older than the lease time");
    expect(html).toMatch(
      /data-testid="cluster-summary"[^>]*>2 of 3 nodes live · 16 sessions owned · Lease time 6.00 s/,
    );
    expect(html).toMatch(/data-testid="cluster-unowned"[^>]*>2 sessions waiting for a node</);
    expect(html).not.toContain('data-testid="cluster-single"');
  });

  it("shows a single process alone and says what makes a cluster", () => {
    const html = render({
      mode: "single",
      leaseTtlMs: null,
      unowned: 0,
      placesOn: ["host:3000"],
      nodes: [node("host:3000", { self: true, sessions: 3 })],
    });
    expect(html).toContain('data-testid="cluster-single"');
    expect(html).toContain("REDIS_URL");
    expect(rows(html)).toHaveLength(1);
    expect(html).toMatch(/data-testid="lease-age" data-health="none"[^>]*>–</);
    expect(html).not.toContain('data-testid="cluster-unowned"');
  });

  it("speaks Chinese", () => {
    const html = render(THREE, "zh-CN");
    expect(html).toContain("<h1>集群</h1>");
    expect(html).toContain("本节点");
    expect(html).toContain("失联");
    expect(html).toContain("3 个节点中 2 个在线 · 已占有 16 个会话");
  });
});

describe("cluster figures", () => {
  it("mark a lease late past two thirds of the lease time and expired at it", () => {
    expect(leaseHealth({ leaseAgeMs: 4_000 }, 6_000)).toBe("fresh");
    expect(leaseHealth({ leaseAgeMs: 4_001 }, 6_000)).toBe("late");
    expect(leaseHealth({ leaseAgeMs: 6_000 }, 6_000)).toBe("expired");
    expect(leaseHealth({ leaseAgeMs: null }, 6_000)).toBe("none");
    expect(leaseHealth({ leaseAgeMs: 10 }, null)).toBe("none");
    expect(clusterTotals(THREE)).toEqual({ live: 2, gone: 1, owned: 16 });
  });
});
