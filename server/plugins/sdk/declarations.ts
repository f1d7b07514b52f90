// Where decorators leave their declarations and how the Runner finds them: on the decorated method
// itself, under a registered symbol, so they survive however many copies of the SDK get loaded.
import type { HookDeclaration, ToolDeclaration } from "../../../lib/plugins/components";

const DECLARATIONS = Symbol.for("maisaka.plugin.declarations");

export type MethodDeclaration = { kind: "tool"; tool: ToolDeclaration } | { kind: "hook"; hook: HookDeclaration };

type Declared = { [DECLARATIONS]?: MethodDeclaration[] };

export function attachDeclaration(method: object, declaration: MethodDeclaration): void {
  const target = method as Declared; // decorators run on functions; the symbol key is ours alone
  if (!Object.prototype.hasOwnProperty.call(target, DECLARATIONS)) {
    Object.defineProperty(target, DECLARATIONS, { value: [], enumerable: false });
  }
  target[DECLARATIONS]?.push(declaration);
}

/** Every declaration on an instance's methods, subclass first; an override hides what it overrides. */
export function collectDeclarations(instance: object): MethodDeclaration[] {
  const seen = new Set<string>();
  const found: MethodDeclaration[] = [];
  for (
    let proto = Object.getPrototypeOf(instance) as object | null;
    proto && proto !== Object.prototype;
    proto = Object.getPrototypeOf(proto) as object | null
  ) {
    for (const name of Object.getOwnPropertyNames(proto)) {
      if (name === "constructor" || seen.has(name)) continue;
      seen.add(name);
      const value: unknown = Object.getOwnPropertyDescriptor(proto, name)?.value;
      if (typeof value === "function") found.push(...((value as Declared)[DECLARATIONS] ?? []));
    }
  }
  return found;
}
