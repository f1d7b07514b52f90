// Outside parts a re-run borrows (the bot's data, tool providers, plugin hooks), their async work
// counted by the run's Quiescence so the virtual clock never moves while they are busy.
import type { HookPayloads, HookRunner } from "../engine";
import type { ToolProvider } from "../tools/provider";
import type { Quiescence } from "./quiescence";

/** The store with every promise-returning method tracked (reads of the bot's data by tools run live). */
export function trackedStore<T extends object>(store: T, quiet: Quiescence): T {
  return new Proxy(store, {
    get(target, key, receiver) {
      const value: unknown = Reflect.get(target, key, receiver);
      if (typeof value !== "function") return value;
      return (...args: unknown[]) => {
        const out: unknown = Reflect.apply(value, target, args);
        return out instanceof Promise ? quiet.track(out) : out;
      };
    },
  });
}

export function trackedProvider(provider: ToolProvider, quiet: Quiescence): ToolProvider {
  return {
    providerName: provider.providerName,
    providerType: provider.providerType,
    listTools: (ctx) => quiet.track(provider.listTools(ctx)),
    invoke: (invocation, ctx) => quiet.track(provider.invoke(invocation, ctx)),
    // The server owns the provider; the run only borrows it.
    close: () => Promise.resolve(),
  };
}

/**
 * The server's hooks (plugins rewriting prompts) run as they would, counted as outside work; then
 * `pace` lets the virtual time pass that the original spent there (a plugin's hook takes real time,
 * and a message arriving meanwhile came before the request, not during it).
 */
export function trackedHooks(
  inner: HookRunner,
  quiet: Quiescence,
  pace: (point: keyof HookPayloads) => Promise<void>,
): HookRunner {
  return {
    async run(point, payload) {
      const out = await quiet.track(inner.run(point, payload));
      await pace(point);
      return out;
    },
  };
}
