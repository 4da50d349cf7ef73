/** Builds every service over one database connection: the API and the CLI share them. */

import type { AwarenessOut } from "./collab/node-awareness";
import { SqliteDocPersistence } from "./collab/persistence";
import { DocRegistry, type RegistryOptions } from "./collab/registry";
import type { Config, Secrets } from "./config";
import { Access } from "./core/access";
import { AccessMemo } from "./core/access-memo";
import { AppError } from "./core/errors";
import { type DomainEvent, EventBus } from "./core/events";
import type { Connection } from "./db/client";
import { GroupCommit } from "./db/group-commit";
import { StorageHealth } from "./db/health";
import { Cluster } from "./db/pg/cluster";
import type { PgDatabase } from "./db/pg/connection";
import { UnitOfWork } from "./db/unit";
import { ActivityService } from "./features/activity/activity.service";
import { ActivityStore } from "./features/activity/activity.store";
import { AuditRecords } from "./features/audit/audit.records";
import { AuditLog, type Origin } from "./features/audit/audit.service";
import { AuditStore } from "./features/audit/audit.store";
import { AuthService } from "./features/auth/auth.service";
import { AuthStore } from "./features/auth/auth.store";
import { ConnectionRuns } from "./features/automations/automations.connections";
import { AutomationRunJob } from "./features/automations/automations.job";
import { Scheduler } from "./features/automations/automations.scheduler";
import { AutomationsService } from "./features/automations/automations.service";
import { AutomationsStore } from "./features/automations/automations.store";
import { WebhookDeliveries } from "./features/automations/automations.webhook-deliveries";
import { ChatService, RoomPurge } from "./features/chat/chat.service";
import { ChatStore } from "./features/chat/chat.store";
import { LiveEvents } from "./features/events/events.live";
import { FilesService } from "./features/files/files.service";
import { FilesStore } from "./features/files/files.store";
import { PostItems } from "./features/inbox/inbox.batch";
import { InboxService } from "./features/inbox/inbox.service";
import { InboxSources, type SourcesWorld } from "./features/inbox/inbox.sources";
import { InboxStore } from "./features/inbox/inbox.store";
import { InstanceService } from "./features/instance/instance.service";
import { SettingsStore } from "./features/instance/instance.store";
import { IntegrationsService } from "./features/integrations/integrations.service";
import { IntegrationsStore } from "./features/integrations/integrations.store";
import { InvitesService } from "./features/invites/invites.service";
import { InvitesStore } from "./features/invites/invites.store";
import { LabelsService } from "./features/labels/labels.service";
import { LabelsStore } from "./features/labels/labels.store";
import { MembersService } from "./features/members/members.service";
import { MembersStore } from "./features/members/members.store";
import { type EmailOptions, EmailService, SWEEP_LEASE_MS } from "./features/notifications/notifications.email";
import { type NotificationsWorld, PushService } from "./features/notifications/notifications.service";
import { NotificationsStore } from "./features/notifications/notifications.store";
import { OrganizationService } from "./features/organization/organization.service";
import { OrganizationStore } from "./features/organization/organization.store";
import { ProposalsService } from "./features/proposals/proposals.service";
import { ProposalsStore } from "./features/proposals/proposals.store";
import { AgentReplies } from "./features/replies/replies.agent";
import { DEFAULT_REPLY_TIMING, ReplyJob, type ReplyTiming } from "./features/replies/replies.job";
import { ModelrouterReplies } from "./features/replies/replies.modelrouter";
import { ReplyQueue } from "./features/replies/replies.queue";
import { ReplyRetry } from "./features/replies/replies.retry";
import { SearchService } from "./features/search/search.service";
import { SearchStore } from "./features/search/search.store";
import { PgSearchStore } from "./features/search/search.store.pg";
import { SignupsService } from "./features/signups/signups.service";
import { SignupsStore } from "./features/signups/signups.store";
import { SpacesService } from "./features/spaces/spaces.service";
import { SpacesStore } from "./features/spaces/spaces.store";
import { StaffService } from "./features/staff/staff.service";
import { StaffStore } from "./features/staff/staff.store";
import { TasksService } from "./features/tasks/tasks.service";
import { TasksStore } from "./features/tasks/tasks.store";
import { TunnelNodes } from "./features/tunnels/tunnels.nodes";
import { TunnelsService } from "./features/tunnels/tunnels.service";
import { VersionsService } from "./features/versions/versions.service";
import { VersionsStore } from "./features/versions/versions.store";
import { JobsStore } from "./jobs/jobs.store";
import { JobQueue } from "./jobs/queue";
import { JobRunner } from "./jobs/runner";
import type { Logger } from "./lib/log";
import { checkKey as checkAgentKey } from "./providers/agent";
import { Mailer } from "./providers/mail";
import { checkKey as checkModelrouterKey } from "./providers/modelrouter";
import { PushClient } from "./providers/push";

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
  /** Document memory settings (tests shorten the idle time and the editing session of a version). */
  docs?: RegistryOptions;
  /** The clock versions are stamped and thinned by (bench/versions.ts runs a simulated month). */
  versionsClock?: () => number;
  /** Where the job runner reports; without one (CLI commands) jobs are stored but never run. */
  log?: Logger;
  /** Reply pacing and job leases (tests shrink them). */
  jobs?: JobTuning;
  /** The address people open Tandem at, for links in emails and pushes: known once the server listens. */
  publicUrl?: () => string;
  /** How often email looks for unread items (tests shorten it). */
  email?: EmailOptions;
  /** Who the audit log names for an act no one signed in made: the server (default) or a `tandem` command. */
  origin?: Origin;
}

/** What tests shorten about staff replies. */
export interface JobTuning {
  reply?: Partial<ReplyTiming>;
  leaseMs?: number;
  heartbeatMs?: number;
  retryBaseMs?: number;
  /** Multiplies the pauses between an automation run's attempts. */
  automationPauseScale?: number;
}

export function createServices(conn: Connection, config: Config, options: ServiceOptions = {}) {
  const { db } = conn;
  // Several nodes on one PostgreSQL database hear each other's writes (contract §9); linked below.
  const cluster =
    conn.engine === "postgres" && config.databaseUrl
      ? new Cluster(conn.sqlite as unknown as PgDatabase, config.databaseUrl, options.onEventError ?? (() => undefined))
      : null;
  const events = new EventBus(options.onEventError);
  // Every write of every service is a unit of work on this one connection.
  const uow = new UnitOfWork(db, events);
  const memo = new AccessMemo();
  const secrets = options.secrets ?? null;
  const membersStore = new MembersStore(db, memo);
  const members = new MembersService(uow, membersStore);
  const organization = new OrganizationService(uow, new OrganizationStore(db), members);
  // Without loaded secrets (CLI commands that sign nothing) tokens are signed with a key of this process alone.
  const authStore = new AuthStore(db);
  const auth = new AuthService(
    uow,
    authStore,
    members,
    { signupState: (user) => signups.stateOf(user), staffByTokenHash: (hash) => staff.byTokenHash(hash) },
    secrets?.jwtSecret ?? new Uint8Array(0),
  );
  const signups = new SignupsService(uow, new SignupsStore(db), organization, members, auth);
  // Invites that name an address are emailed once committed (`email`, below).
  const invites = new InvitesService(uow, new InvitesStore(db), organization, members, auth, {
    get enabled() {
      return email.enabled;
    },
    sendInvite: (invite, token) => email.sendInvite(invite, token),
  });
  const instance = new InstanceService(
    uow,
    config,
    new SettingsStore(db),
    organization,
    auth,
    secrets?.encryptionKey ?? null,
    options.setupToken ?? null,
    new StorageHealth(conn.sqlite, config.dataDir, conn.engine === "sqlite" ? config.dbPath : null),
  );
  // One group commit per connection: chat posts and document updates of a turn share its transaction.
  const commits = new GroupCommit(conn.sqlite, uow, conn.engine === "postgres");
  const docs = new DocRegistry(
    uow,
    new SqliteDocPersistence(db),
    commits,
    {
      settled: (unit, nodeId, scope, editing) => files.textSettled(unit, nodeId, scope, editing),
      failed: (error, nodeId) => options.onDocError?.(error, nodeId),
      history: {
        before: (unit, nodeId, scope, authors, replaced) => versions.before(unit, nodeId, scope, authors, replaced),
        keep: (unit, nodeId, scope, authors) => versions.keep(unit, nodeId, scope, authors),
      },
      stored: (nodeId, update) =>
        cluster?.send("doc", { node_id: nodeId, update: Buffer.from(update).toString("base64") }),
      // Cursors cross to the other nodes in a transaction of their own, a batch at a time; ephemeral, so one
      // that could not be written is reported and left to the next change (or an editor's renewal). A node alone
      // writes none: a node that starts asks for the editors the others have, and that wakes them (`alone`).
      awareness: cluster
        ? (batch) => {
            if (cluster.alone) return;
            try {
              cluster.send("awareness", batch.map(toNodes));
            } catch (error) {
              options.onEventError?.(error);
            }
          }
        : undefined,
    },
    options.docs,
  );
  const files: FilesService = new FilesService(uow, new FilesStore(db), config.maxUploadBytes, docs);
  // A text file's versions, kept as its document tells; they go with the file.
  const versions: VersionsService = new VersionsService(uow, new VersionsStore(db), files, {
    now: options.versionsClock,
  });
  versions.listen(events);
  const jobsStore = new JobsStore(db, conn.engine);
  const jobs = new JobQueue(uow, jobsStore);
  const tuning = options.jobs ?? {};
  const runner = options.log
    ? new JobRunner(uow, jobsStore, options.log, {
        concurrency: config.staffWorkers,
        leaseMs: tuning.leaseMs ?? config.jobLeaseMs,
        heartbeatMs: tuning.heartbeatMs ?? Math.round((tuning.leaseMs ?? config.jobLeaseMs) / 3),
        // On PostgreSQL a running job may be another node's: a start takes back only those of nodes gone.
        nodes: cluster ? { self: cluster.node, alive: () => cluster.alive() } : undefined,
        retryBaseMs: tuning.retryBaseMs,
      })
    : null;
  const chatStore = new ChatStore(db);
  const purge = new RoomPurge(uow, chatStore, (err) =>
    options.log?.error({ err }, "removing a deleted room's messages failed; trying again"),
  );
  const chat = new ChatService(uow, chatStore, commits, purge, files);
  const spaces = new SpacesService(uow, new SpacesStore(db, memo), chat, members);
  const activity = new ActivityService(uow, new ActivityStore(db), spaces);
  const access = new Access({
    memberPermissions: (orgId, userId) => members.permissions(orgId, userId),
    hasPendingSignup: (orgId, userId) => signups.isPending(orgId, userId),
    spaceWithRole: (orgId, spaceId, userId) => spaces.withRole(orgId, spaceId, userId),
  });
  const labels = new LabelsService(uow, new LabelsStore(db));
  const tasks = new TasksService(uow, new TasksStore(db), spaces, members, files, labels);
  const staffStore = new StaffStore(db, memo);
  const staff = new StaffService(uow, staffStore, members, tasks, chat, config.modelrouter.defaultModel);
  // What follows a write inside its transaction: each feature listens to what concerns it.
  for (const feature of [auth, signups, invites, spaces, tasks]) feature.listen(events);
  new ReplyQueue({ staff, access, chat, jobs }).listen(events);
  // The audit log records the acts it follows in their own transactions.
  const audit = new AuditLog(uow, new AuditStore(db), members, options.origin);
  new AuditRecords(audit, {
    user: (userId) => members.user(userId),
    spaceName: (orgId, spaceId) => spaces.withRole(orgId, spaceId, "")?.name,
    fileName: (spaceId, nodeId) => files.nameOf(spaceId, nodeId),
    roles: (orgId, ids) => members.roleRefs(orgId, ids),
  }).listen(events);
  const searchStore = conn.engine === "postgres" ? new PgSearchStore(db) : new SearchStore(db);
  // On PostgreSQL a new message is indexed in its own transaction (any node finds it at once, no crash loses it).
  const search = new SearchService(uow, searchStore, spaces, access, options.log, conn.engine === "postgres");
  search.listen(events);
  // The inbox listens to what needs people: mentions, assignments, staff answers, approvals, and deletions.
  const inboxWorld: SourcesWorld = {
    visibleSpaceIds: (actor) => spaces.list(actor).map((space) => space.id),
    memberActor: (orgId, userId) => {
      try {
        return access.orgActor({ userId, serviceAccountId: null }, orgId, "member");
      } catch (error) {
        if (error instanceof AppError) return null;
        throw error;
      }
    },
    sees: (actor, spaceId) => access.sees(actor, spaceId),
    isStaff: (orgId, userId) => staff.mentionables(orgId).some((m) => m.userId === userId && m.staff !== null),
    directory: (orgId) => staff.mentionables(orgId),
  };
  const inboxStore = new InboxStore(db);
  // A person's chat post: its items in a batch after it (the hot path's write) on SQLite; on PostgreSQL in its own
  // transaction, so any node reads them as soon as the post is answered and no node's crash leaves them unwritten.
  const postItems = conn.engine === "sqlite" ? new PostItems(uow, inboxStore, options.log) : null;
  const inbox = new InboxService(uow, inboxStore, commits, inboxWorld, postItems);
  new InboxSources(inbox, inboxWorld, postItems).listen(events);
  // Email and Web Push: what reaches people away from Tandem. Only a serving process (with a log) sends.
  const publicUrl = () => config.publicUrl ?? options.publicUrl?.() ?? `http://localhost:${config.port}`;
  const notificationsWorld: NotificationsWorld = {
    memberActor: inboxWorld.memberActor,
    spaceNames: (actor) => new Map(spaces.list(actor).map((space) => [space.id, space.name])),
    settings: (actor) => inbox.settings(actor),
    user: (userId) => members.user(userId),
    organizationName: (orgId) => organization.byId(orgId)?.name ?? "",
    publicUrl,
  };
  const sending = options.log !== undefined;
  const email = new EmailService(
    sending && config.smtp ? new Mailer(config.smtp) : null,
    inbox,
    notificationsWorld,
    options.log ?? null,
    options.email,
    // Every node sweeps, one at a time.
    cluster?.lease("email.sweep", SWEEP_LEASE_MS) ?? null,
  );
  const vapidKey = sending && secrets?.vapidPrivateKey.length === 32 ? secrets.vapidPrivateKey : null;
  const push = new PushService(
    uow,
    new NotificationsStore(db),
    vapidKey ? new PushClient(vapidKey, () => vapidSubject(publicUrl(), config.smtp?.from)) : null,
    notificationsWorld,
    options.log ?? null,
  );
  push.listen(events);
  const encryptionKey = secrets?.encryptionKey ?? null;
  const integrations = new IntegrationsService(uow, new IntegrationsStore(db), encryptionKey, {
    modelrouter: (key, signal) => checkModelrouterKey(config.modelrouter, key, signal),
    agent: (key, signal) => checkAgentKey(config.agent, key, signal),
  });
  const automationsStore = new AutomationsStore(db);
  const automations = new AutomationsService(
    uow,
    automationsStore,
    encryptionKey,
    {
      roomExists: (spaceId, name) => chat.roomNamed(spaceId, name) !== undefined,
      columnExists: (spaceId, name) =>
        spaces.columns({ id: spaceId }).some((c) => c.name.toLowerCase() === name.trim().toLowerCase()),
      isStaff: (orgId, userId) => staff.mentionables(orgId).some((m) => m.userId === userId && m.staff !== null),
      isMember: (orgId, userId) => members.isMember(orgId, userId),
    },
    jobs,
  );
  automations.listen(events);
  const webhooks = new WebhookDeliveries(automationsStore, automations, commits, encryptionKey);
  const scheduler = options.log ? new Scheduler(uow, automationsStore, automations, options.log) : null;
  const proposals = new ProposalsService(uow, new ProposalsStore(db), files);
  const tunnels = new TunnelsService(
    {
      runs: new ConnectionRuns(uow, automationsStore),
      access,
      auth,
      changes: memo,
      events,
      secret: secrets?.jwtSecret ?? new Uint8Array(0),
      // A serving node's tunnels reach the other nodes' (a CLI command has neither secrets nor a log).
      nodes:
        cluster && secrets && options.log
          ? new TunnelNodes(db, cluster, secrets.jwtSecret, (err, message) => options.log?.warn({ err }, message))
          : null,
    },
    { ...config.tunnels, maxBodyBytes: config.maxUploadBytes },
  );
  runner?.register(
    new AutomationRunJob(uow, automationsStore, access, { chat, tasks, spaces }, encryptionKey, {
      pauseScale: tuning.automationPauseScale ?? 1,
    }),
  );
  runner?.register(
    new ReplyJob(
      uow,
      {
        staff,
        permissionsOf: (orgId, userId) => members.permissions(orgId, userId),
        access,
        activity,
        providers: {
          modelrouter: new ModelrouterReplies(config.modelrouter, integrations),
          agent: new AgentReplies(config.agent, integrations, spaces),
        },
      },
      { chat, tasks, files, proposals, automations, spaces, labels },
      { ...DEFAULT_REPLY_TIMING, ...tuning.reply },
    ),
  );
  const retry = new ReplyRetry(uow, { chat, staff, activity, access, jobs });
  if (cluster) {
    linkNodes(cluster, {
      events,
      memo,
      docs,
      authStore,
      membersStore,
      forget: [chatStore, inboxStore, staffStore, automationsStore, tasks],
    });
  }
  return {
    cluster,
    auth,
    retry,
    live: new LiveEvents(events, memo, auth, access, (actor) => spaces.memberships(actor)),
    members,
    organization,
    invites,
    signups,
    instance,
    staff,
    spaces,
    files,
    tasks,
    labels,
    chat,
    events,
    docs,
    access,
    memo,
    integrations,
    automations,
    tunnels,
    webhooks,
    proposals,
    versions,
    activity,
    audit,
    search,
    inbox,
    email,
    push,
    runner,
    scheduler,
  };
}

/**
 * The contact push services are given with each push (VAPID `sub`): the public URL when it is https, else the
 * sender's address of email, else a `mailto:` at the public URL's host.
 */
function vapidSubject(publicUrl: string, from: string | undefined): string {
  if (publicUrl.startsWith("https://")) return publicUrl;
  const address = from === undefined ? undefined : (/<([^<>]+)>\s*$/.exec(from)?.[1] ?? from.trim());
  return `mailto:${address ?? `tandem@${new URL(publicUrl).hostname}`}`;
}

/**
 * PostgreSQL mode: what each write tells the other nodes (its events, access and session changes, a document's
 * update), and what this node does with what they wrote: its live sockets and timers hear their events, and
 * everything it remembers of the tables is read again (src/db/pg/cluster.ts). Editors' cursors cross too, and
 * those of a node that is gone are dropped at the next heartbeat.
 */
function linkNodes(
  cluster: Cluster,
  parts: {
    events: EventBus;
    memo: AccessMemo;
    docs: DocRegistry;
    authStore: AuthStore;
    membersStore: MembersStore;
    forget: { forgetRemembered(): void }[];
  },
): void {
  const { events, memo, docs, authStore, membersStore, forget } = parts;
  events.onEveryWrite((event) => {
    const { type, organization_id, space_id, payload, coalesce, editing, to } = event;
    cluster.send("event", { type, organization_id, space_id, payload, coalesce, editing, to });
  });
  memo.relay = (userId) => cluster.send("access", { user_id: userId });
  authStore.relay = () => cluster.send("sessions", {});
  cluster.on("event", (event) => {
    for (const part of forget) part.forgetRemembered();
    events.publishRemote(event as DomainEvent);
  });
  cluster.on("access", (body) => {
    const { user_id } = body as { user_id: string | null };
    if (user_id === null) memo.clear(true);
    else memo.forgetUser(user_id, true);
    membersStore.forgetRemembered();
  });
  cluster.on("sessions", () => authStore.forgetRemembered());
  cluster.on("doc", (body) => {
    const { node_id, update } = body as { node_id: string; update: string };
    docs.applyElsewhere(node_id, new Uint8Array(Buffer.from(update, "base64")));
  });
  cluster.on("awareness", (body, from) => {
    for (const { node_id, update, ask } of body as NodesAwareness[]) {
      docs.awarenessElsewhere(
        from,
        node_id,
        update === null ? null : new Uint8Array(Buffer.from(update, "base64")),
        ask,
      );
    }
  });
  cluster.onBeat(() => docs.forgetNodesGone(() => cluster.alive()));
}

/** A document's cursors as a row of `cluster_events` carries them. */
interface NodesAwareness {
  node_id: string;
  update: string | null;
  ask: boolean;
}

/** A document's cursors for the other nodes: the update's bytes in base64. */
function toNodes({ nodeId, update, ask }: AwarenessOut): NodesAwareness {
  return { node_id: nodeId, update: update === null ? null : Buffer.from(update).toString("base64"), ask };
}
