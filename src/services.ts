/** Builds every service over one database connection: the API and the CLI share them. */

import { SqliteDocPersistence } from "./collab/persistence";
import { DocRegistry, type RegistryOptions } from "./collab/registry";
import type { Config, Secrets } from "./config";
import type { Connection } from "./db/client";
import { GroupCommit } from "./db/group-commit";
import { AuthService } from "./features/auth/auth.service";
import { AuthStore } from "./features/auth/auth.store";
import { AutomationsService } from "./features/automations/automations.service";
import { AutomationsStore } from "./features/automations/automations.store";
import { ChatService } from "./features/chat/chat.service";
import { ChatStore } from "./features/chat/chat.store";
import { EventBus } from "./features/events/events.bus";
import { FilesService } from "./features/files/files.service";
import { FilesStore } from "./features/files/files.store";
import { InstanceService } from "./features/instance/instance.service";
import { SettingsStore } from "./features/instance/instance.store";
import { IntegrationsService } from "./features/integrations/integrations.service";
import { IntegrationsStore } from "./features/integrations/integrations.store";
import { AccessMemo } from "./features/people/access.memo";
import { PeopleService } from "./features/people/people.service";
import { PeopleStore } from "./features/people/people.store";
import { ProposalsService } from "./features/proposals/proposals.service";
import { ProposalsStore } from "./features/proposals/proposals.store";
import { SpacesService } from "./features/spaces/spaces.service";
import { SpacesStore } from "./features/spaces/spaces.store";
import { StaffService } from "./features/staff/staff.service";
import { StaffStore } from "./features/staff/staff.store";
import { TasksService } from "./features/tasks/tasks.service";
import { TasksStore } from "./features/tasks/tasks.store";

/** Every service of the app. */
export type Services = ReturnType<typeof createServices>;

/** Options that only a serving process has. */
export interface ServiceOptions {
  secrets?: Secrets | null;
  setupToken?: string | null;
  /** Where a failing event subscriber is reported. */
  onEventError?: (error: unknown) => void;
  /** Where a document that could not be stored or loaded is reported. */
  onDocError?: (error: unknown, nodeId: string) => void;
  /** Document memory settings (tests shorten the idle time). */
  docs?: RegistryOptions;
}

export function createServices(conn: Connection, config: Config, options: ServiceOptions = {}) {
  const { db } = conn;
  const events = new EventBus(options.onEventError);
  const access = new AccessMemo();
  const peopleStore = new PeopleStore(db, access);
  const authStore = new AuthStore(db);
  const secrets = options.secrets ?? null;
  // Without loaded secrets (CLI commands that sign nothing) tokens cannot verify; nothing there needs them.
  const auth = new AuthService(db, authStore, peopleStore, secrets?.jwtSecret ?? new Uint8Array(0));
  const people = new PeopleService(db, peopleStore, authStore);
  const instance = new InstanceService(
    config,
    new SettingsStore(db),
    people,
    auth,
    secrets?.encryptionKey ?? null,
    options.setupToken ?? null,
  );
  const staff = new StaffService(db, new StaffStore(db), peopleStore, config.modelrouter.defaultModel);
  const chatStore = new ChatStore(db);
  const spacesStore = new SpacesStore(db, access);
  const spaces = new SpacesService(db, spacesStore, chatStore, peopleStore);
  // One group commit per connection: chat posts and document updates of a turn share its transaction.
  const commits = new GroupCommit(conn.sqlite);
  const docs = new DocRegistry(
    db,
    new SqliteDocPersistence(db),
    commits,
    {
      stored: (nodeId, scope) => files.announceStored(nodeId, scope),
      failed: (error, nodeId) => options.onDocError?.(error, nodeId),
    },
    options.docs,
  );
  const files: FilesService = new FilesService(db, new FilesStore(db), config.maxUploadBytes, events, docs);
  const tasks = new TasksService(db, new TasksStore(db), spacesStore, peopleStore, files, events);
  const chat = new ChatService(db, chatStore, commits, events);
  const encryptionKey = secrets?.encryptionKey ?? null;
  const integrations = new IntegrationsService(db, new IntegrationsStore(db), encryptionKey);
  const automations = new AutomationsService(db, new AutomationsStore(db), events, encryptionKey);
  const proposals = new ProposalsService(db, new ProposalsStore(db), files);
  return {
    auth,
    authStore,
    people,
    instance,
    staff,
    spaces,
    files,
    tasks,
    chat,
    events,
    docs,
    access,
    integrations,
    automations,
    proposals,
  };
}
