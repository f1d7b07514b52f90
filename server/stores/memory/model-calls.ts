import type { ModelCall } from "../../../lib/rerun/cassette";
import type { ModelCallStore } from "../types";
import { copy, type IdSource } from "./support";

export class MemoryModelCallStore implements ModelCallStore {
  private readonly calls: ModelCall[] = [];

  constructor(private readonly newId: IdSource) {}

  async record(call: Omit<ModelCall, "id">): Promise<void> {
    this.calls.push({ ...copy(call), id: this.newId("model-call") });
  }

  async list(sessionId: string): Promise<ModelCall[]> {
    return this.calls
      .map((call, index) => ({ call, index }))
      .filter(({ call }) => call.sessionId === sessionId)
      .sort((a, b) => a.call.startedAt - b.call.startedAt || a.index - b.index)
      .map(({ call }) => copy(call));
  }
}
