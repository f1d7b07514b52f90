// The engine's public surface for other rooms (HTTP, MCP): they use these, never runtime fields.
export { HeartflowManager, type RuntimeStatus } from "./heartflow-manager";
