// Every /api route of interface.md; the router matches literal segments before parameters.
import type { Route } from "../route";
import type { ApiContext } from "../context";
import { createAccountRoute, deleteAccountRoute, listAccountsRoute, updateAccountRoute } from "./accounts";
import { auditRoute } from "./audit";
import { listLoginSessionsRoute, loginRoute, logoutRoute, meRoute, revokeLoginSessionRoute } from "./auth";
import { botDataRoutes } from "./bot-data";
import { endpointsRoute } from "./endpoints";
import { healthRoute } from "./health";
import { onebotAudienceRoute, platformsRoute } from "./platforms";
import { providersRoute } from "./providers";
import { searchRoute } from "./search";
import { sessionEventsRoute } from "./session-events";
import { sessionHistoryRoute } from "./session-history";
import { chatImageRoute } from "./session-images";
import { postMessageRoute } from "./session-messages";
import { operatorSendRoute } from "./session-send";
import { createSessionRoute, getSessionRoute, listSessionsRoute } from "./sessions";
import { iconRoute, invokeToolRoute, listToolsRoute, toggleToolRoute, toolAuditRoute } from "./tools";
import { usageRoute } from "./usage";

export const apiRoutes: Route<ApiContext>[] = [
  healthRoute,
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
  postMessageRoute,
  operatorSendRoute,
  sessionEventsRoute,
  sessionHistoryRoute,
  chatImageRoute,
  listToolsRoute,
  toggleToolRoute,
  toolAuditRoute,
  invokeToolRoute,
  iconRoute,
  providersRoute,
  usageRoute,
  searchRoute,
  endpointsRoute,
  platformsRoute,
  onebotAudienceRoute,
  ...botDataRoutes,
];
