/** buildApp: the HTTP app of Tandem. It never listens, so tests can also call `app.handle()`. */
import { Elysia } from "elysia";
import type { Config } from "./config";
import { authRoutes } from "./features/auth/auth.routes";
import { chatRoutes } from "./features/chat/chat.routes";
import { filesRoutes } from "./features/files/files.routes";
import { instanceRoutes } from "./features/instance/instance.routes";
import { peopleRoutes } from "./features/people/people.routes";
import { spacesRoutes } from "./features/spaces/spaces.routes";
import { staffRoutes } from "./features/staff/staff.routes";
import { tasksRoutes } from "./features/tasks/tasks.routes";
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

export function buildApp({ config, log, access, services }: AppDeps) {
  const auth = authMacro(services.auth, services.spaces);
  // The docs describe the finished app, which does not exist yet while it is being built.
  let finished: { routes: unknown[] } | undefined;
  const app = new Elysia()
    .use(httpBase(log, access, config.maxJsonBytes))
    .use(instanceRoutes(auth, services.instance))
    .use(authRoutes(auth, services.auth))
    .use(peopleRoutes(auth, services.people))
    .use(staffRoutes(auth, services.staff))
    .use(spacesRoutes(auth, services.spaces))
    .use(filesRoutes(auth, services.files, services.events))
    .use(tasksRoutes(auth, services.tasks))
    .use(chatRoutes(auth, services.chat, services.events))
    .use(docsRoutes(auth, () => (finished?.routes ?? []) as RouteInfo[]))
    .use(webRoutes(auth));
  finished = app;
  return app;
}

/** The app type, for tests that walk its routes. */
export type App = ReturnType<typeof buildApp>;
