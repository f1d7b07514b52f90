// The adapters the server runs, in the order they were registered: the outbound router finds the owner
// of a session here, GET /api/platforms lists them, and shutdown closes them all. The installed
// platforms (installed.ts) are known even when their adapter is not running, so a send to a chat of a
// platform that is down fails instead of staying local.
import type { AdapterAudience, PlatformAdapter, PlatformModule } from "./seam";

/** What a registry knows of an installed platform: which sessions are its chats, and its name. */
type InstalledPlatform = Pick<PlatformModule<unknown>, "platform" | "label" | "ownsSessionId">;

export class AdapterRegistry {
  private readonly adapters: PlatformAdapter[] = [];

  constructor(private readonly installed: readonly InstalledPlatform[] = []) {}

  register(adapter: PlatformAdapter): void {
    if (this.adapters.some((a) => a.platform === adapter.platform))
      throw new Error(`a ${adapter.platform} adapter is registered already`);
    this.adapters.push(adapter);
  }

  list(): readonly PlatformAdapter[] {
    return this.adapters;
  }

  find(platform: string): PlatformAdapter | undefined {
    return this.adapters.find((a) => a.platform === platform);
  }

  /**
   * The adapter whose chat the session is; `down` names the installed platform whose chat it is when
   * that platform's adapter is not running; null for sessions of no platform (the API, the CLI).
   */
  ownerOf(sessionId: string): { adapter: PlatformAdapter } | { down: string } | null {
    const adapter = this.adapters.find((a) => a.owns(sessionId));
    if (adapter) return { adapter };
    const platform = this.installed.find((p) => p.ownsSessionId(sessionId));
    return platform ? { down: platform.label } : null;
  }

  /** The audience settings of the first adapter that has them (GET /api/platforms' `audience`). */
  audience(): AdapterAudience | null {
    for (const adapter of this.adapters) {
      const audience = adapter.audience();
      if (audience) return audience;
    }
    return null;
  }

  /** Closes every adapter, the last registered first; each is closed even when another's close fails. */
  async closeAll(reason: string): Promise<void> {
    const failures: unknown[] = [];
    for (const adapter of [...this.adapters].reverse()) {
      try {
        await adapter.close(reason);
      } catch (error) {
        failures.push(error);
      }
    }
    if (failures.length) throw failures[0];
  }
}
