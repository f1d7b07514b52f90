// What a plugin's code receives from the Runner.
import type { CallContext } from "../../../lib/plugins/protocol";

export interface PluginLogger {
  info(message: string): void;
  warn(message: string): void;
  error(message: string): void;
}

/** Given to the plugin class's constructor. */
export interface PluginContext {
  readonly pluginId: string;
  /** Absolute path of the plugin's folder (for its own files). */
  readonly pluginDir: string;
  /** Settings from config `plugins.config.<id>`, checked against the manifest's configSchema with its defaults. */
  readonly config: Readonly<Record<string, unknown>>;
  /** Only the environment variables config grants this plugin (`plugins.env.<id>`). */
  readonly env: Readonly<Record<string, string>>;
  readonly log: PluginLogger;
}

/** Second argument of every tool and action method. */
export interface ToolCallContext extends CallContext {
  /** Aborted when the Host gives up on the call (timeout); stop work that is no longer wanted. */
  readonly signal: AbortSignal;
}

/** Second argument of every hook method. */
export interface HookCallContext {
  readonly signal: AbortSignal;
}

/** Arguments of a legacy @Action method: its parameters plus what the old action API passed. */
export type ActionArgs = Record<string, unknown> & {
  reasoning: string;
  /** The model's original arguments. */
  actionData: Record<string, unknown>;
};

/** Optional base class: keeps the context at `this.ctx`. */
export abstract class Plugin {
  constructor(protected readonly ctx: PluginContext) {}
}
