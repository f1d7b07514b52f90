// A source of tools (docs/engine-rules.md#tool-providers). It translates its own tools into ToolSpecs and runs them; it
// knows nothing of other providers. A tool's own failure is a result with success:false, not a throw.
import type {
  ProviderType,
  ToolAvailabilityContext,
  ToolExecutionContext,
  ToolExecutionResult,
  ToolInvocation,
  ToolSpec,
} from "../../lib/tools/schemas";

export interface ToolProvider {
  readonly providerName: string;
  readonly providerType: ProviderType;
  listTools(ctx?: ToolAvailabilityContext): Promise<ToolSpec[]>;
  invoke(invocation: ToolInvocation, ctx?: ToolExecutionContext): Promise<ToolExecutionResult>;
  close(): Promise<void>;
}
