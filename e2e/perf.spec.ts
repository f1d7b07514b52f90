// Measurements for the closing note, written to test-results/perf.json: event -> DOM
// latency under ~200 events/s, opening a 10,000-event session, and scrolling it. The assertions are
// loose guards against regressions; the figures themselves are the report. Benchmark, not gating:
// `npm run bench:browser` (needs `npx next build` first), never part of `npm test`.
import { mkdirSync, readFileSync, writeFileSync, existsSync } from "node:fs";
import type { Page } from "@playwright/test";
import { BIG_SESSION, BIG_SESSION_EVENTS } from "./support/env";
import { expect, shot, test, type Api } from "./support/fixtures";

const PERF_FILE = "test-results/perf.json";
/** Sessions fed at once; each takes at most 5 messages/s (the server's inbound limit). */
const LOAD_SESSIONS = 30;

function record(name: string, figures: Record<string, number | string>): void {
  mkdirSync("test-results", { recursive: true });
  const all = existsSync(PERF_FILE) ? (JSON.parse(readFileSync(PERF_FILE, "utf8")) as Record<string, unknown>) : {};
  all[name] = figures;
  writeFileSync(PERF_FILE, `${JSON.stringify(all, null, 2)}\n`);
  console.log(`[perf] ${name}: ${JSON.stringify(figures)}`);
}

const pct = (sorted: number[], p: number) =>
  sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] : NaN;
const round = (n: number) => Math.round(n * 10) / 10;

/**
 * In the page: the receive time of every monitor event frame (socket.io over WebSocket, parsed
 * before the app sees it), and the time each `[data-last-seq]` attribute changed in the DOM.
 */
function installProbes(page: Page) {
  return page.addInitScript(() => {
    type Probe = { recv: [string, number, number, number][]; dom: [string, number, number][] };
    const probe: Probe = { recv: [], dom: [] };
    (window as unknown as { __probe: Probe }).__probe = probe;
    const Native = window.WebSocket;
    class Probed extends Native {
      constructor(url: string | URL, protocols?: string | string[]) {
        super(url, protocols);
        this.addEventListener("message", (m: MessageEvent) => {
          const t = performance.now();
          if (typeof m.data !== "string" || !m.data.startsWith("42/monitor,")) return;
          const [name, env] = JSON.parse(m.data.slice(m.data.indexOf("["))) as [
            string,
            { sessionId: string; seq: number; ts: number },
          ];
          if (name === "event") probe.recv.push([env.sessionId, env.seq, t, env.ts]);
        });
      }
    }
    window.WebSocket = Probed;
    new MutationObserver((records) => {
      const t = performance.now();
      for (const r of records) {
        const el = r.target as HTMLElement;
        const seq = Number(el.getAttribute("data-last-seq"));
        const sid = el.getAttribute("data-session-id") ?? el.getAttribute("data-probe-session") ?? "";
        if (sid && seq) probe.dom.push([sid, seq, t]);
      }
    }).observe(document, { attributes: true, attributeFilter: ["data-last-seq"], subtree: true });
  });
}

/** Latency of each received event to the first DOM state showing it. */
async function latencies(page: Page, since: number) {
  return page.evaluate((since) => {
    const probe = (
      window as unknown as { __probe: { recv: [string, number, number, number][]; dom: [string, number, number][] } }
    ).__probe;
    const dom = new Map<string, [number, number][]>();
    for (const [sid, seq, t] of probe.dom) dom.set(sid, [...(dom.get(sid) ?? []), [seq, t]]);
    const client: number[] = [];
    const endToEnd: number[] = [];
    const recv = probe.recv.filter(([, , t]) => t >= since);
    for (const [sid, seq, t, ts] of recv) {
      const hit = (dom.get(sid) ?? []).find(([s, dt]) => s >= seq && dt >= t);
      if (!hit) continue;
      client.push(hit[1] - t);
      endToEnd.push(performance.timeOrigin + hit[1] - ts);
    }
    const span = recv.length > 1 ? (recv[recv.length - 1][2] - recv[0][2]) / 1000 : 1;
    return { client, endToEnd, received: recv.length, rate: recv.length / span };
  }, since);
}

async function load(api: Api, sessions: string[], seconds: number, perSecond: number): Promise<void> {
  const until = Date.now() + seconds * 1000;
  await Promise.all(
    sessions.map(async (id, k) => {
      for (let i = 0; Date.now() < until; i++) {
        await api.send(id, `负载 ${k}-${i}`, { userName: `U${i % 3}`, atBot: i % 2 === 0 }).catch(() => undefined);
        await new Promise((r) => setTimeout(r, 1000 / perSecond));
      }
    }),
  );
}

test("a 10,000-event session opens without a confirm and scrolls smoothly", async ({ page }) => {
  test.setTimeout(120_000);
  // Warm the route once (server-side compile and caches), then measure a cold page load.
  await page.goto(`/sessions/${BIG_SESSION}`);
  await expect(page.getByTestId("timeline")).toHaveAttribute("data-event-count", String(BIG_SESSION_EVENTS), {
    timeout: 60_000,
  });

  // Three cold page loads; the median is reported (this 2-core machine is shared).
  const opens: number[] = [];
  const completes: number[] = [];
  for (let run = 0; run < 3; run++) {
    await page.goto("/");
    await page.goto(`/sessions/${BIG_SESSION}`);
    // Open: the newest events are on screen (cycle cards drawn) and the page is usable.
    opens.push(
      Number(
        await (
          await page.waitForFunction(
            () => (document.querySelector('[data-testid="cycle-card"]') ? performance.now() : null),
            null,
            { timeout: 30_000, polling: "raf" },
          )
        ).jsonValue(),
      ),
    );
    // Complete: every one of the 10,000+ events merged (older ones load behind the visible end).
    completes.push(
      Number(
        await (
          await page.waitForFunction(
            (n) =>
              document.querySelector('[data-testid="timeline"]')?.getAttribute("data-event-count") === String(n)
                ? performance.now()
                : null,
            BIG_SESSION_EVENTS,
            { timeout: 30_000, polling: "raf" },
          )
        ).jsonValue(),
      ),
    );
  }
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  const open = median(opens);
  const complete = median(completes);
  await expect(page.getByTestId("history-loading")).toHaveCount(0);
  await shot(page, "session-10k");

  const fps = await page
    .getByTestId("timeline")
    .locator(".vlist")
    .evaluate(async (el) => {
      el.scrollTop = 0;
      await new Promise((r) => requestAnimationFrame(() => r(null)));
      const frames: number[] = [];
      const startAt = performance.now();
      let last = startAt;
      while (performance.now() - startAt < 3_000) {
        await new Promise((r) => requestAnimationFrame(() => r(null)));
        const now = performance.now();
        frames.push(now - last);
        last = now;
        el.scrollTop += 120;
      }
      const sorted = [...frames].sort((a, b) => a - b);
      return {
        fps: frames.length / ((last - startAt) / 1000),
        p95FrameMs: sorted[Math.floor(sorted.length * 0.95)],
        longFrames: frames.filter((f) => f > 1000 / 30).length,
        scrolledPx: el.scrollTop,
      };
    });

  const replayOpens: number[] = [];
  for (let run = 0; run < 3; run++) {
    await page.goto("/");
    await page.goto(`/sessions/${BIG_SESSION}/replay`);
    // Open: the player is usable (it starts at the beginning; the rest of the recording streams in).
    replayOpens.push(
      Number(
        await (
          await page.waitForFunction(
            () => (document.querySelector('[data-testid="scrubber"]') ? performance.now() : null),
            null,
            { timeout: 30_000, polling: "raf" },
          )
        ).jsonValue(),
      ),
    );
  }
  const replayOpen = median(replayOpens);
  await expect(page.getByTestId("replay")).toHaveAttribute("data-total", String(BIG_SESSION_EVENTS), {
    timeout: 30_000,
  });
  // Scrub across the whole recording in 60 steps, one per frame.
  const scrub = await page.getByTestId("scrubber").evaluate(async (bar) => {
    const rect = bar.getBoundingClientRect();
    const frames: number[] = [];
    let last = performance.now();
    const startAt = last;
    for (let i = 0; i <= 60; i++) {
      const x = rect.left + (rect.width * i) / 60;
      const init = { clientX: x, clientY: rect.top + 5, pointerId: 1, bubbles: true };
      bar.dispatchEvent(new PointerEvent(i === 0 ? "pointerdown" : "pointermove", init));
      await new Promise((r) => requestAnimationFrame(() => r(null)));
      const now = performance.now();
      frames.push(now - last);
      last = now;
    }
    bar.dispatchEvent(new PointerEvent("pointerup", { pointerId: 1, bubbles: true }));
    const sorted = [...frames].sort((a, b) => a - b);
    return { fps: frames.length / ((last - startAt) / 1000), p95FrameMs: sorted[Math.floor(sorted.length * 0.95)] };
  });
  await expect(page.getByTestId("replay")).toHaveAttribute("data-index", String(BIG_SESSION_EVENTS));
  await shot(page, "replay-10k");

  record("big_session", {
    events: BIG_SESSION_EVENTS,
    liveViewOpenMs: round(open),
    liveViewCompleteMs: round(complete),
    scrollFps: round(fps.fps),
    scrollP95FrameMs: round(fps.p95FrameMs),
    scrollLongFrames: fps.longFrames,
    replayOpenMs: round(replayOpen),
    scrubFps: round(scrub.fps),
    scrubP95FrameMs: round(scrub.p95FrameMs),
  });
  expect(open).toBeLessThan(5_000);
  expect(fps.fps).toBeGreaterThan(20);
  expect(fps.scrolledPx).toBeGreaterThan(10_000);
});

test("event -> DOM latency under ~200 events/s", async ({ page, api }) => {
  test.setTimeout(180_000);
  const ids: string[] = [];
  for (let i = 0; i < LOAD_SESSIONS; i++) ids.push(await api.createSession(`Load ${i}`));
  await installProbes(page);

  // The overview takes every session's events (the "*" stream).
  await page.goto("/");
  await expect(page.locator(`tr[data-session-id="${ids[LOAD_SESSIONS - 1]}"]`)).toBeVisible();
  await page.waitForTimeout(1_500);
  const start = await page.evaluate(() => performance.now());
  await load(api, ids, 12, 4);
  await page.waitForTimeout(1_500);
  const overview = await latencies(page, start);
  const c = [...overview.client].sort((a, b) => a - b);
  const e = [...overview.endToEnd].sort((a, b) => a - b);
  record("overview_event_to_dom", {
    events: overview.received,
    eventsPerSecond: round(overview.rate),
    clientP50ms: round(pct(c, 50)),
    clientP95ms: round(pct(c, 95)),
    clientMaxMs: round(c[c.length - 1]),
    engineToDomP50ms: round(pct(e, 50)),
    engineToDomP95ms: round(pct(e, 95)),
  });
  expect(overview.received).toBeGreaterThan(500);
  expect(pct(c, 95)).toBeLessThan(500);
  await shot(page, "sessions-overview-under-load");

  // One session's live view while all of them run.
  await page.goto(`/sessions/${ids[0]}`);
  await page.getByTestId("timeline").evaluate((el, id) => el.setAttribute("data-probe-session", id), ids[0]);
  await page.waitForTimeout(1_000);
  const start2 = await page.evaluate(() => performance.now());
  await load(api, ids, 8, 4);
  await page.waitForTimeout(1_500);
  const live = await latencies(page, start2);
  const l = [...live.client].sort((a, b) => a - b);
  const le = [...live.endToEnd].sort((a, b) => a - b);
  record("live_view_event_to_dom", {
    events: live.received,
    eventsPerSecond: round(live.rate),
    clientP50ms: round(pct(l, 50)),
    clientP95ms: round(pct(l, 95)),
    engineToDomP95ms: round(pct(le, 95)),
  });
  // Few events reach one session here and the server shares the CPU with the load: a sanity
  // bound only (the 200 events/s live-view figure comes from the next test).
  expect(pct(l, 95)).toBeLessThan(1_000);
  for (const id of ids) await api.waitIdle(id, 90_000);
});

test("live view of the 10,000-event session at 200 events/s", async ({ page }) => {
  test.setTimeout(120_000);
  // The server's inbound limit (5 messages/s per session) cannot make one session emit 200 events/s,
  // so events shaped like the recording are added to the real socket stream of this page, after
  // the ledger's last seq, at 200 per second.
  const template = readFileSync("e2e/fixtures/group-chat.events.jsonl", "utf8")
    .split("\n")
    .filter(Boolean)
    .map((l) => JSON.parse(l) as { type: string; data: Record<string, unknown> })
    .filter((e) => e.type !== "session.start" && e.type !== "session.stop");
  const injector: { send: ((frame: string) => void) | null } = { send: null };
  await page.routeWebSocket(/socket\.io/, (ws) => {
    ws.connectToServer();
    injector.send = (frame) => ws.send(frame);
  });
  await installProbes(page);
  await page.goto(`/sessions/${BIG_SESSION}`);
  await expect(page.getByTestId("timeline")).toHaveAttribute("data-event-count", String(BIG_SESSION_EVENTS), {
    timeout: 30_000,
  });
  await page.getByTestId("timeline").evaluate((el, id) => el.setAttribute("data-probe-session", id), BIG_SESSION);
  await expect(page.getByText("Following live")).toBeVisible();
  await page.waitForTimeout(1_000);
  const start = await page.evaluate(() => performance.now());

  const RATE = 200;
  const SECONDS = 8;
  let seq = BIG_SESSION_EVENTS;
  const began = Date.now();
  for (let n = 0; n < RATE * SECONDS; n++) {
    const due = began + (n * 1000) / RATE;
    const wait = due - Date.now();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    const e = template[n % template.length];
    const round = Math.floor(n / template.length);
    const data: unknown = JSON.parse(
      JSON.stringify(e.data).replace(/"(cycleId|messageId|replyTo|msg_id)":"([^"]+)"/g, `"$1":"p${round}$2"`),
    );
    seq++;
    injector.send?.(
      `42/monitor,${JSON.stringify(["event", { seq, sessionId: BIG_SESSION, type: e.type, ts: Date.now(), data }])}`,
    );
  }
  await page.waitForTimeout(1_000);
  const live = await latencies(page, start);
  const l = [...live.client].sort((a, b) => a - b);
  record("live_view_10k_at_200_per_s", {
    events: live.received,
    eventsPerSecond: round(live.rate),
    clientP50ms: round(pct(l, 50)),
    clientP95ms: round(pct(l, 95)),
    clientMaxMs: round(l[l.length - 1]),
  });
  await expect(page.getByTestId("timeline")).toHaveAttribute("data-last-seq", String(seq));
  await shot(page, "session-10k-streaming");
  expect(live.received).toBe(RATE * SECONDS);
  expect(pct(l, 95)).toBeLessThan(500);
});
