// Which chats the OneBot bots serve, changed live by operators: the one owner of the audience part of
// platforms.onebot (groups, users, private). Changes are saved as a setting and laid over the config
// file's values at the next start; the inbound mapping reads the config object on every event, so a
// change applies from the next event on.
import {
  onebotAudienceSchema,
  type AudienceChange,
  type OneBotAudience,
  type OneBotAudiencePatch,
} from "../../../lib/platforms/status";
import type { OneBotConfig } from "../../../lib/config/schema";
import type { Clock } from "../../kernel/clock";
import type { Logger } from "../../kernel/logger";
import type { SettingStore } from "../../stores/settings";
import type { SettingChanges } from "../seam";

export const ONEBOT_AUDIENCE_SETTING = "platforms.onebot.audience";

/** Whether one of the parts the patch sets differs now from the audience it was edited from. */
function changedMeanwhile(patch: OneBotAudiencePatch, base: OneBotAudience, now: OneBotAudience): boolean {
  const parts = (["groups", "users", "private"] as const).filter((part) => patch[part] !== undefined);
  return parts.some((part) => JSON.stringify(base[part]) !== JSON.stringify(now[part]));
}

export class OneBotAudienceSettings {
  /** Changes one at a time: a second one starts from what the first left. */
  private queue: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly config: OneBotConfig,
    private readonly store: SettingStore,
    private readonly clock: Clock,
    private readonly logger: Logger,
    private readonly changes: SettingChanges,
  ) {}

  current(): OneBotAudience {
    const { groups, users } = this.config;
    return {
      groups: { allow: [...groups.allow], deny: [...groups.deny] },
      users: { allow: [...users.allow], deny: [...users.deny] },
      private: this.config.private,
    };
  }

  /** Lays a saved change over the config file's values (a saved value that no longer parses is ignored). */
  async load(): Promise<void> {
    const saved = await this.store.get(ONEBOT_AUDIENCE_SETTING);
    if (saved === undefined) return;
    const parsed = onebotAudienceSchema.safeParse(saved);
    if (!parsed.success) {
      this.logger.warn(`[onebot] the saved audience setting is not valid and is ignored: ${parsed.error.message}`);
      return;
    }
    this.apply(parsed.data);
  }

  /** Reads the saved audience again, after the changes already queued (another node changed it). */
  reload(): Promise<void> {
    const run = this.queue.then(() => this.load());
    this.queue = run.catch(() => undefined);
    return run;
  }

  /**
   * Saves the change, then applies it; resolves with the audience before and after, or with the
   * current one when a part being changed is no longer what the operator edited from (patch.base).
   */
  change(patch: OneBotAudiencePatch): Promise<AudienceChange> {
    const run = this.queue.then(async (): Promise<AudienceChange> => {
      const before = this.current();
      if (patch.base && changedMeanwhile(patch, patch.base, before)) return { ok: false, current: before };
      const after: OneBotAudience = {
        groups: patch.groups ?? before.groups,
        users: patch.users ?? before.users,
        private: patch.private ?? before.private,
      };
      // Saved first: a change that could not be stored is not applied (it would vanish at restart).
      await this.store.set(ONEBOT_AUDIENCE_SETTING, after, this.clock.now());
      this.apply(after);
      this.changes.changed("audience");
      return { ok: true, before, after };
    });
    this.queue = run.catch(() => undefined);
    return run;
  }

  private apply(audience: OneBotAudience): void {
    this.config.groups = audience.groups;
    this.config.users = audience.users;
    this.config.private = audience.private;
  }
}
