// Every /api route of docs/api.md; the router matches literal segments before parameters.
import type { Route } from "../route";
import type { ApiContext } from "../context";
import { createAccountRoute, deleteAccountRoute, listAccountsRoute, updateAccountRoute } from "./accounts";
import { analyticsCyclesRoute, analyticsRoute } from "./analytics";
import { auditRoute } from "./audit";
import { listLoginSessionsRoute, loginRoute, logoutRoute, meRoute, revokeLoginSessionRoute } from "./auth";
import { botDataRoutes } from "./bot-data";
import { clusterRoute } from "./cluster";
import { diffRoute } from "./diff";
import { endpointsRoute } from "./endpoints";
import { healthRoute } from "./health";
import { loginHintRoute } from "./login-hint";
import { adapterRoutes, platformsRoute } from "./platforms";
import { providersRoute } from "./providers";
import { searchRoute } from "./search";
import { sessionBranchesRoute, sessionModelCallsRoute } from "./session-branches";
import { sessionEventsRoute } from "./session-events";
import { exportSessionRoute, importSessionRoute } from "./session-export";
import { sessionHistoryRoute } from "./session-history";
import { rerunSessionRoute } from "./session-rerun";
import { chatImageRoute } from "./session-images";
import { postMessageRoute } from "./session-messages";
import { operatorSendRoute } from "./session-send";
import { sourceRoutes } from "./sources";
import { getSettingsRoute, patchSettingsRoute } from "./settings";
import {
  archiveSessionRoute,
  createSessionRoute,
  deleteSessionRoute,
  getSessionRoute,
  listSessionsRoute,
  unarchiveSessionRoute,
} from "./sessions";
import { iconRoute, invokeToolRoute, listToolsRoute, toggleToolRoute, toolAuditRoute } from "./tools";
import { usageBudgetRoute, usageRoute, usageSeriesRoute } from "./usage";
import { sessionOtelRoute, telemetryRoute } from "./telemetry";

export const apiRoutes: Route<ApiContext>[] = [
  healthRoute,
  loginHintRoute,
  loginRoute,
  logoutRoute,
  meRoute,
  listLoginSessionsRoute,
  revokeLoginSessionRoute,
  listAccountsRoute,
  createAccountRoute,
  updateAccountRoute,
  deleteAccountRoute,
  auditRoute,
  listSessionsRoute,
  createSessionRoute,
  getSessionRoute,
  archiveSessionRoute,
  unarchiveSessionRoute,
  deleteSessionRoute,
  postMessageRoute,
  operatorSendRoute,
  sessionEventsRoute,
  sessionHistoryRoute,
  sessionModelCallsRoute,
  sessionBranchesRoute,
  chatImageRoute,
  exportSessionRoute,
  importSessionRoute,
  rerunSessionRoute,
  sessionOtelRoute,
  telemetryRoute,
  listToolsRoute,
  toggleToolRoute,
  toolAuditRoute,
  invokeToolRoute,
  iconRoute,
  providersRoute,
  usageRoute,
  usageSeriesRoute,
  usageBudgetRoute,
  analyticsRoute,
  analyticsCyclesRoute,
  searchRoute,
  diffRoute,
  endpointsRoute,
  platformsRoute,
  ...adapterRoutes,
  clusterRoute,
  getSettingsRoute,
  patchSettingsRoute,
  ...botDataRoutes,
  ...sourceRoutes,
];
