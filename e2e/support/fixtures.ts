// Shared e2e fixtures: a logged-in page that fails the test on any page error or dialog (a hostile
// message must never open one), an API client with the operator token, and screenshots.
import { test as base, expect, type APIRequestContext, type Page } from "@playwright/test";
import { E2E_BASE, E2E_TOKEN } from "./env";

export interface SessionInfo {
  id: string;
  agentState: string;
  running: boolean;
  pendingMessages: number;
  lastSeq: number;
  cycleCount: number;
}

export interface LedgerEvent {
  seq: number;
  type: string;
  ts: number;
  data: Record<string, unknown>;
}

export class Api {
  constructor(readonly ctx: APIRequestContext) {}

  async createSession(name: string, id?: string): Promise<string> {
    const res = await this.ctx.post("/api/sessions", { data: { name, ...(id ? { id } : {}) } });
    expect(res.status(), await res.text()).toBe(201);
    return ((await res.json()) as { id: string }).id;
  }

  async send(sessionId: string, text: string, opts: { userName?: string; atBot?: boolean } = {}): Promise<void> {
    const userName = opts.userName ?? "Tester";
    const res = await this.ctx.post(`/api/sessions/${sessionId}/messages`, {
      data: {
        userId: `e2e-${userName.toLowerCase()}`,
        userName,
        text,
        ...(opts.atBot ? { atBot: true, mentionsBot: true } : {}),
      },
    });
    expect(res.status(), await res.text()).toBe(202);
  }

  async session(sessionId: string): Promise<SessionInfo> {
    const res = await this.ctx.get(`/api/sessions/${sessionId}`);
    expect(res.ok()).toBe(true);
    return (await res.json()) as SessionInfo;
  }

  async events(sessionId: string): Promise<LedgerEvent[]> {
    const out: LedgerEvent[] = [];
    for (let after = 0; ;) {
      const res = await this.ctx.get(`/api/sessions/${sessionId}/events?afterSeq=${after}&limit=5000`);
      const page = (await res.json()) as { events: LedgerEvent[]; nextAfterSeq: number; lastSeq: number };
      out.push(...page.events);
      if (page.events.length === 0 || page.nextAfterSeq >= page.lastSeq) return out;
      after = page.nextAfterSeq;
    }
  }

  /** Until no turn runs or waits to run and the ledger stopped growing for a moment (`running` only says the runtime is loaded). */
  async waitIdle(sessionId: string, timeoutMs = 45_000): Promise<SessionInfo> {
    const deadline = Date.now() + timeoutMs;
    let last = -1;
    let stableSince = Date.now();
    for (;;) {
      const s = await this.session(sessionId);
      if (s.lastSeq !== last) {
        last = s.lastSeq;
        stableSince = Date.now();
      }
      if (s.pendingMessages === 0 && s.agentState !== "running" && Date.now() - stableSince > 1_200) return s;
      if (Date.now() > deadline) throw new Error(`session ${sessionId} did not become idle: ${JSON.stringify(s)}`);
      await new Promise((r) => setTimeout(r, 200));
    }
  }
}

export const test = base.extend<{ api: Api; pageProblems: string[] }>({
  api: async ({ playwright }, use) => {
    const ctx = await playwright.request.newContext({
      baseURL: E2E_BASE,
      extraHTTPHeaders: { authorization: `Bearer ${E2E_TOKEN}` },
    });
    await use(new Api(ctx));
    await ctx.dispose();
  },
  // eslint-disable-next-line no-empty-pattern -- Playwright reads a fixture's dependencies from an object pattern
  pageProblems: async ({}, use) => {
    await use([]);
  },
  page: async ({ page, pageProblems }, use) => {
    page.on("pageerror", (e) => pageProblems.push(`page error: ${e.message}`));
    page.on("dialog", (d) => {
      pageProblems.push(`dialog opened: ${d.type()} ${d.message()}`);
      void d.dismiss();
    });
    const login = await page.request.post("/api/auth/login", { data: { token: E2E_TOKEN } });
    expect(login.ok()).toBe(true);
    await use(page);
    expect(pageProblems, "no page error and no dialog").toEqual([]);
  },
});

export { expect };

export async function shot(page: Page, name: string): Promise<void> {
  await page.screenshot({ path: `test-results/screenshots/${name}.png` });
}

/** The session timeline as the page holds it (data attributes of the timeline container). */
export async function timelineState(
  page: Page,
): Promise<{ lastSeq: number; events: number; messages: number; cycles: number }> {
  const el = page.getByTestId("timeline");
  const [lastSeq, events, messages, cycles] = await Promise.all(
    ["data-last-seq", "data-event-count", "data-message-count", "data-cycle-count"].map(async (a) =>
      Number(await el.getAttribute(a)),
    ),
  );
  return { lastSeq, events, messages, cycles };
}
