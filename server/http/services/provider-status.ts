// Status of every tool source for GET /api/providers. The builtin provider registers here at start;
// the plugin runner and each MCP server register their own source when they come up, and remove it
// (the returned function) when they go away.
import type { ProviderStatus } from "../../../lib/api/schemas";

export interface ProviderStatusSource {
  name: string;
  type: ProviderStatus["type"];
  /** One status, or several (a runner reporting per plugin). */
  status(): ProviderStatus | ProviderStatus[] | Promise<ProviderStatus | ProviderStatus[]>;
}

/** The registry's precedence: a name offered by several providers goes to the earliest. */
const PRECEDENCE: Record<ProviderStatus["type"], number> = { builtin: 0, plugin: 1, mcp: 2 };

export class ProviderStatusRegistry {
  private readonly sources = new Map<string, ProviderStatusSource>();

  /** Registers (or replaces) the source of that name; returns its removal. */
  register(source: ProviderStatusSource): () => void {
    this.sources.set(source.name, source);
    return () => {
      if (this.sources.get(source.name) === source) this.sources.delete(source.name);
    };
  }

  /**
   * In precedence order (builtin, plugins, MCP servers), each source's own order kept (MCP servers in
   * config order) even when a source registers again later; a source that throws shows as a failed
   * provider instead of failing the list.
   */
  async list(): Promise<ProviderStatus[]> {
    const lists = await Promise.all(
      [...this.sources.values()].map(async (source): Promise<ProviderStatus[]> => {
        try {
          const status = await source.status();
          return Array.isArray(status) ? status : [status];
        } catch (error) {
          const message = error instanceof Error ? error.message : String(error);
          return [
            { name: source.name, type: source.type, state: "failed", toolCount: 0, lastError: message, detail: {} },
          ];
        }
      }),
    );
    return lists.flat().sort((a, b) => PRECEDENCE[a.type] - PRECEDENCE[b.type]);
  }
}
