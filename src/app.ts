/** buildApp: the HTTP app of Tandem. It never listens, so tests can also call `app.handle()`. */
import { Elysia } from "elysia";
import { collabRoutes } from "./collab/collab.routes";
import { CollabSockets } from "./collab/collab.sockets";
import type { Config } from "./config";
import { activityRoutes } from "./features/activity/activity.routes";
import { auditRoutes } from "./features/audit/audit.routes";
import { authRoutes } from "./features/auth/auth.routes";
import { automationsRoutes } from "./features/automations/automations.routes";
import { webhookRoutes } from "./features/automations/automations.webhook-routes";
import { chatRoutes } from "./features/chat/chat.routes";
import { eventsRoutes } from "./features/events/events.routes";
import { filesRoutes } from "./features/files/files.routes";
import { inboxRoutes } from "./features/inbox/inbox.routes";
import { instanceRoutes } from "./features/instance/instance.routes";
import { integrationsRoutes } from "./features/integrations/integrations.routes";
import { invitesRoutes } from "./features/invites/invites.routes";
import { labelsRoutes } from "./features/labels/labels.routes";
import { membersRoutes } from "./features/members/members.routes";
import { notificationsRoutes } from "./features/notifications/notifications.routes";
import { organizationRoutes } from "./features/organization/organization.routes";
import { proposalsRoutes } from "./features/proposals/proposals.routes";
import { repliesRoutes } from "./features/replies/replies.routes";
import { searchRoutes } from "./features/search/search.routes";
import { signupsRoutes } from "./features/signups/signups.routes";
import { spacesRoutes } from "./features/spaces/spaces.routes";
import { staffRoutes } from "./features/staff/staff.routes";
import { tasksRoutes } from "./features/tasks/tasks.routes";
import { tunnelsRoutes } from "./features/tunnels/tunnels.routes";
import { versionsRoutes } from "./features/versions/versions.routes";
import { authMacro } from "./http/auth";
import { httpBase } from "./http/base";
import { docsRoutes, type RouteInfo } from "./http/openapi";
import { webRoutes } from "./http/web";
import type { AccessEntry } from "./lib/access-log";
import type { Logger } from "./lib/log";
import type { Services } from "./services";

/** What the app is built from. */
export interface AppDeps {
  config: Config;
  log: Logger;
  /** Writes the one line per request. */
  access: (entry: AccessEntry) => void;
  services: Services;
}

/** The WebSocket frame limit: a text file's whole document must fit in one sync message. */
const MAX_SOCKET_MESSAGE_BYTES = 16 * 1024 * 1024;

export function buildApp({ config, log, access, services }: AppDeps) {
  const auth = authMacro(services.auth, services.access, () => services.organization.current()?.id);
  const { events, docs, files } = services;
  const collab = new CollabSockets(docs, services.auth, services.access, files, services.memo, events, log);
  // The docs describe the finished app, which does not exist yet while it is being built.
  let finished: { routes: unknown[] } | undefined;
  const app = new Elysia({
    websocket: { maxPayloadLength: MAX_SOCKET_MESSAGE_BYTES, closeOnBackpressureLimit: true },
  })
    .use(httpBase(log, access, config.maxJsonBytes, config.trustedProxies))
    .use(instanceRoutes(auth, services.instance))
    .use(authRoutes(auth, services.auth))
    .use(organizationRoutes(auth, services.organization))
    .use(membersRoutes(auth, services.members))
    .use(invitesRoutes(auth, services.invites))
    .use(signupsRoutes(auth, services.signups))
    .use(staffRoutes(auth, services.staff))
    .use(integrationsRoutes(auth, services.integrations))
    .use(activityRoutes(auth, services.activity))
    .use(auditRoutes(auth, services.audit))
    .use(spacesRoutes(auth, services.spaces))
    .use(collabRoutes(auth, collab, log))
    .use(proposalsRoutes(auth, services.proposals))
    .use(versionsRoutes(auth, services.versions))
    .use(filesRoutes(auth, files, events))
    .use(tasksRoutes(auth, services.tasks))
    .use(labelsRoutes(auth, services.labels))
    .use(chatRoutes(auth, services.chat, events))
    .use(repliesRoutes(auth, services.retry))
    .use(inboxRoutes(auth, services.inbox))
    .use(notificationsRoutes(auth, services.push))
    .use(automationsRoutes(auth, services.automations))
    .use(tunnelsRoutes(auth, services.tunnels, log))
    .use(searchRoutes(auth, services.search))
    .use(webhookRoutes(auth, services.webhooks))
    .use(eventsRoutes(auth, services.live, log))
    .use(docsRoutes(auth, () => (finished?.routes ?? []) as RouteInfo[]))
    .use(webRoutes(auth));
  finished = app;
  return app;
}

/** The app type, for tests that walk its routes. */
export type App = ReturnType<typeof buildApp>;
