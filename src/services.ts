/** Builds every service over one database connection: the API and the CLI share them. */

import { SqliteDocPersistence } from "./collab/persistence";
import { DocRegistry, type RegistryOptions } from "./collab/registry";
import type { Config, Secrets } from "./config";
import { Access } from "./core/access";
import { EventBus } from "./core/events";
import type { Connection } from "./db/client";
import { GroupCommit } from "./db/group-commit";
import { ActivityService } from "./features/activity/activity.service";
import { ActivityStore } from "./features/activity/activity.store";
import { AuthService } from "./features/auth/auth.service";
import { AuthStore } from "./features/auth/auth.store";
import { AutomationsService } from "./features/automations/automations.service";
import { AutomationsStore } from "./features/automations/automations.store";
import { ChatService, RoomPurge } from "./features/chat/chat.service";
import { ChatStore } from "./features/chat/chat.store";
import { LiveEvents } from "./features/events/events.live";
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
import { JobsStore } from "./jobs/jobs.store";
import { JobRunner } from "./jobs/runner";
import { DEFAULT_REPLY_TIMING, type ReplyTiming, StaffReplyJob, StaffReplyQueue } from "./jobs/staff-reply";
import type { Logger } from "./lib/log";

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
  /** Where the job runner reports; without one (CLI commands) jobs are stored but never run. */
  log?: Logger;
  /** Reply pacing and job leases (tests shrink them). */
  jobs?: JobTuning;
}

/** What tests shorten about staff replies. */
export interface JobTuning {
  reply?: Partial<ReplyTiming>;
  leaseMs?: number;
  heartbeatMs?: number;
  retryBaseMs?: number;
}

export function createServices(conn: Connection, config: Config, options: ServiceOptions = {}) {
  const { db } = conn;
  const events = new EventBus(options.onEventError);
  const memo = new AccessMemo();
  const peopleStore = new PeopleStore(db, memo);
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
  const staffStore = new StaffStore(db, memo);
  const chatStore = new ChatStore(db);
  const spacesStore = new SpacesStore(db, memo);
  const spaces = new SpacesService(db, spacesStore, chatStore, peopleStore);
  const access = new Access({
    memberPermissions: (orgId, userId) => peopleStore.memberPermissions(orgId, userId),
    hasPendingSignup: (orgId, userId) => peopleStore.hasPendingSignup(orgId, userId),
    spaceWithRole: (orgId, spaceId, userId) => spaces.withRole(orgId, spaceId, userId),
  });
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
  const jobsStore = new JobsStore(db);
  const activityStore = new ActivityStore(db);
  const tuning = options.jobs ?? {};
  const runner = options.log
    ? new JobRunner(db, jobsStore, options.log, {
        concurrency: config.staffWorkers,
        leaseMs: tuning.leaseMs,
        heartbeatMs: tuning.heartbeatMs,
        retryBaseMs: tuning.retryBaseMs,
      })
    : null;
  const replies = new StaffReplyQueue(
    {
      staff: staffStore,
      people: peopleStore,
      spaces: spacesStore,
      chat: chatStore,
      jobs: jobsStore,
    },
    () => runner?.wake(),
  );
  const tasks = new TasksService(db, new TasksStore(db), spacesStore, peopleStore, files, events, replies);
  const purge = new RoomPurge(db, chatStore, (err) =>
    options.log?.error({ err }, "removing a deleted room's messages failed; trying again"),
  );
  const chat = new ChatService(db, chatStore, commits, events, replies, purge);
  const staff = new StaffService(db, staffStore, peopleStore, tasks, chat, events, config.modelrouter.defaultModel);
  const encryptionKey = secrets?.encryptionKey ?? null;
  const integrations = new IntegrationsService(db, new IntegrationsStore(db), encryptionKey);
  const automations = new AutomationsService(db, new AutomationsStore(db), events, encryptionKey);
  const proposals = new ProposalsService(db, new ProposalsStore(db), files, events);
  runner?.register(
    new StaffReplyJob(
      db,
      config,
      { staff: staffStore, people: peopleStore, spaces: spacesStore, activity: activityStore, integrations, events },
      { chat, tasks, files, proposals, automations },
      { ...DEFAULT_REPLY_TIMING, ...tuning.reply },
    ),
  );
  return {
    auth,
    authStore,
    live: new LiveEvents(events, memo, auth, access, (actor) => spaces.memberships(actor)),
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
    memo,
    integrations,
    automations,
    proposals,
    activity: new ActivityService(activityStore, spacesStore),
    runner,
  };
}
