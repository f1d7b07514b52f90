import type { ModelCall } from "../../../lib/rerun/cassette";
import type { ModelCallPage, ModelCallStore } from "../model-calls";
import { copy, keep, takeFirst, type IdSource } from "./support";

export class MemoryModelCallStore implements ModelCallStore {
  private readonly calls: ModelCall[] = [];

  constructor(private readonly newId: IdSource) {}

  async record(call: Omit<ModelCall, "id">): Promise<void> {
    this.calls.push({ ...keep(call), id: this.newId("model-call") });
  }

  async list(sessionId: string, page: ModelCallPage = {}): Promise<ModelCall[]> {
    const mine = this.calls
      .map((call, index) => ({ call, index }))
      .filter(({ call }) => call.sessionId === sessionId)
      .sort((a, b) => a.call.startedAt - b.call.startedAt || a.index - b.index)
      .map(({ call }) => call);
    const { after } = page;
    const at = after ? mine.findIndex((c) => c.id === after.id) : -1;
    // An unknown cursor call (removed meanwhile): the calls that started after it.
    const rest = !after ? mine : at >= 0 ? mine.slice(at + 1) : mine.filter((c) => c.startedAt > after.startedAt);
    return takeFirst(rest, page.limit).map(copy);
  }
}
