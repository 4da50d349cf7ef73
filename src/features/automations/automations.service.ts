/**
 * Automations of a space (api-spec §3, §4; contracts §4 and §8): their records and reviews, the checks of their
 * config (`config_problem`), their schedule (`next_run_at`), their runs, and a webhook's secret. What a run does
 * is the run job's (`automations.job.ts`); when a schedule ticks, the scheduler's (`automations.scheduler.ts`).
 */
import { randomBytes } from "node:crypto";
import type { SpaceActor } from "../../core/actor";
import { conflict, forbidden, invalid, notFound } from "../../core/errors";
import { type EventBus, spaceEvent, type Unit } from "../../core/events";
import { type PageQuery, pageOf } from "../../core/paging";
import type { UnitOfWork } from "../../db/unit";
import type { JobQueue } from "../../jobs/queue";
import { encryptSecret } from "../../lib/encryption";
import { isUuid, newId, nextStamp } from "../../lib/ids";
import { type ConfigWorld, checkConfig, nextTick } from "./automations.config";
import {
  assertMayDelete,
  assertMayReview,
  assertPendingApproval,
  isServiceAccount,
  oauthTokenOf,
} from "./automations.policy";
import { presentAutomation, type presentRun } from "./automations.present";
import {
  type CreateAutomationIn,
  type PatchAutomationIn,
  type RunNowIn,
  type RunTrigger,
  SETTABLE_STATUSES,
} from "./automations.schemas";
import type { AutomationRow, AutomationsStore, RunRow } from "./automations.store";

const automationNotFound = () => notFound("automation not found");

/** The job kind that runs an automation once. */
export const AUTOMATION_RUN = "automation_run";

/** A new webhook secret: `whsec_` and the base64 of 24 random bytes (Standard Webhooks). */
const newWebhookSecret = () => `whsec_${randomBytes(24).toString("base64")}`;

/** The event of a change to an automation, in its space. */
export function automationEvent<T extends "automation.updated" | "automation.run.started" | "automation.run.finished">(
  row: Pick<AutomationRow, "orgId" | "spaceId">,
  type: T,
  payload: T extends "automation.updated" ? ReturnType<typeof presentAutomation> : ReturnType<typeof presentRun>,
) {
  return { type, organization_id: row.orgId, space_id: row.spaceId, payload } as const;
}

export class AutomationsService {
  constructor(
    private readonly uow: UnitOfWork,
    private readonly store: AutomationsStore,
    private readonly encryptionKey: Uint8Array | null,
    /** What config checks ask of the space (rooms, columns, staff, members). */
    private readonly world: ConfigWorld,
    private readonly jobs: JobQueue,
  ) {}

  /**
   * A config that named what went away (a room deleted, a column renamed or deleted, a staff member's account
   * deleted) is checked again in the same unit: it becomes the automation's `config_problem`, and its schedule
   * stops.
   */
  listen(events: EventBus): void {
    events.onWrite("chat.room.deleted", (event, unit) => {
      for (const row of this.store.list(event.space_id)) this.recheck(unit, row);
    });
    // A task's `column` is a column's name: a rename or a deletion can break it, or mend it.
    for (const type of ["board.column.created", "board.column.updated", "board.column.deleted"] as const) {
      events.onWrite(type, (event, unit) => {
        for (const row of this.store.list(event.space_id)) this.recheck(unit, row);
      });
    }
    events.onWrite("user.deleted", (event, unit) => {
      for (const row of this.store.ofOrg(event.organization_id)) this.recheck(unit, row);
    });
  }

  list(actor: SpaceActor): AutomationRow[] {
    return this.store.list(actor.space.id);
  }

  get(actor: SpaceActor, id: string): AutomationRow {
    return this.require(actor, id);
  }

  /**
   * A person's automation starts as `draft` or the status asked for; a service account's always as
   * `pending_approval`, with its `description` kept as `config.proposal_note`. A webhook gets its secret, answered
   * here once.
   */
  create(actor: SpaceActor, input: CreateAutomationIn): { row: AutomationRow; webhookSecret: string | null } {
    const oauthToken = oauthTokenOf(actor, input.oauth_token, false);
    const staff = isServiceAccount(actor);
    const config: Record<string, unknown> = { ...(input.config ?? {}) };
    if (staff && input.description !== undefined) config.proposal_note = input.description;
    const now = Date.now();
    const row: AutomationRow = {
      id: newId(),
      orgId: actor.orgId,
      spaceId: actor.space.id,
      name: input.name,
      kind: input.kind,
      config: JSON.stringify(config),
      status: staff ? "pending_approval" : this.settableStatus(input.status),
      oauthTokenCiphertext: oauthToken == null ? null : this.encrypt(oauthToken),
      createdByUserId: staff ? null : actor.userId,
      createdByServiceAccountId: actor.serviceAccountId,
      reviewedByUserId: null,
      reviewedAt: null,
      rejectionReason: null,
      lastRunAt: null,
      lastError: null,
      nextRunAt: null,
      configProblem: null,
      webhookSecretCiphertext: null,
      createdAt: now,
      updatedAt: now,
    };
    const webhookSecret = input.kind === "webhook" ? newWebhookSecret() : null;
    if (webhookSecret !== null) row.webhookSecretCiphertext = this.encrypt(webhookSecret);
    return this.uow.write((unit) => {
      const settled = this.settle(undefined, row);
      this.store.insert(settled);
      unit.emit(spaceEvent(actor, "automation.updated", presentAutomation(settled)));
      return { row: settled, webhookSecret };
    });
  }

  /**
   * Only the fields given change; a service account's change always waits for approval again. A person who
   * sets a pending automation `active` approves it, and is recorded as its reviewer.
   */
  patch(actor: SpaceActor, id: string, input: PatchAutomationIn): AutomationRow {
    const oauthToken = oauthTokenOf(actor, input.oauth_token, true);
    return this.uow.write((unit) => {
      const current = this.require(actor, id);
      const staff = isServiceAccount(actor);
      const status = staff ? "pending_approval" : (input.status ?? current.status);
      const now = Date.now();
      // Back to waiting: the earlier review was of something else, so it is not shown as this one's.
      const reopened = status === "pending_approval" && current.status !== "pending_approval";
      const approved = !staff && status === "active" && current.status === "pending_approval";
      const next: AutomationRow = {
        ...current,
        ...(reopened ? { reviewedByUserId: null, reviewedAt: null, rejectionReason: null } : {}),
        ...(approved ? { reviewedByUserId: actor.userId, reviewedAt: now, rejectionReason: null } : {}),
        name: input.name ?? current.name,
        config: nextConfig(actor, current, input),
        status,
        oauthTokenCiphertext:
          oauthToken === undefined
            ? current.oauthTokenCiphertext
            : oauthToken === null
              ? null
              : this.encrypt(oauthToken),
        updatedAt: now,
      };
      const settled = this.settle(current, next);
      this.store.save(current, settled);
      unit.emit(spaceEvent(actor, "automation.updated", presentAutomation(settled)));
      if (approved) unit.emit(spaceEvent(actor, "automation.approved", presentAutomation(settled)));
      return settled;
    });
  }

  /** Permanent; announced as `automation.deleted` `{id}` so open lists and approval inboxes drop it. */
  delete(actor: SpaceActor, id: string): void {
    this.uow.write((unit) => {
      const row = this.require(actor, id);
      assertMayDelete(actor, row);
      this.store.delete(row.id);
      unit.emit(spaceEvent(actor, "automation.deleted", { id: row.id }));
    });
  }

  approve(actor: SpaceActor, id: string): AutomationRow {
    return this.review(actor, id, { status: "active", rejectionReason: null });
  }

  reject(actor: SpaceActor, id: string, reason: string | undefined): AutomationRow {
    return this.review(actor, id, { status: "rejected", rejectionReason: reason || null });
  }

  private review(
    actor: SpaceActor,
    id: string,
    outcome: Pick<AutomationRow, "status" | "rejectionReason">,
  ): AutomationRow {
    return this.uow.write((unit) => {
      const current = this.require(actor, id);
      assertMayReview(actor);
      assertPendingApproval(current);
      const now = Date.now();
      const next: AutomationRow = {
        ...current,
        ...outcome,
        reviewedByUserId: actor.userId,
        reviewedAt: now,
        updatedAt: now,
      };
      const settled = this.settle(current, next);
      this.store.save(current, settled);
      const out = presentAutomation(settled);
      unit.emit(spaceEvent(actor, "automation.updated", out));
      unit.emit(spaceEvent(actor, outcome.status === "active" ? "automation.approved" : "automation.rejected", out));
      return settled;
    });
  }

  // Runs

  /** The automation's runs, newest first. */
  runs(actor: SpaceActor, id: string, query: PageQuery): RunRow[] {
    const automation = this.require(actor, id);
    const { limit, before } = pageOf(query);
    return this.store.runs(automation.id, before, limit);
  }

  /** Run now: a person, an active automation whose config is complete (409 otherwise, saying why). */
  runNow(actor: SpaceActor, id: string, input: RunNowIn): RunRow {
    if (isServiceAccount(actor)) throw forbidden("only a person can run an automation");
    return this.uow.write(() => {
      const automation = this.require(actor, id);
      if (automation.status !== "active") throw conflict("automation is not active");
      if (automation.kind === "reverse_tunnel") throw conflict("a tunnel runs while its connector is connected");
      const text = input?.text;
      if (automation.configProblem !== null && !(text && automation.configProblem === "config.text: required")) {
        throw conflict(automation.configProblem);
      }
      return this.queueRun(automation, "manual", text === undefined ? null : JSON.stringify({ text }));
    });
  }

  /**
   * Queues a run of `automation` in the caller's unit (the tick, the delivery or the request that asks), with
   * its job: it runs once, after the unit commits. `input` is the run's input as JSON text (a webhook's payload
   * is kept as its sender wrote it, not parsed and written again); `id` names the run when the caller recorded
   * it first (a webhook delivery, by the run it queues).
   */
  queueRun(
    automation: Pick<AutomationRow, "id" | "spaceId">,
    trigger: RunTrigger,
    input: string | null,
    id: string = newId(),
  ): RunRow {
    return this.uow.write(() => {
      const run: RunRow = {
        id,
        automationId: automation.id,
        spaceId: automation.spaceId,
        trigger,
        status: "queued",
        attempt: 0,
        input,
        output: null,
        error: null,
        startedAt: null,
        finishedAt: null,
        createdAt: nextStamp(this.store.latestRunAt(automation.id)),
      };
      this.store.insertRun(run);
      this.jobs.enqueue(AUTOMATION_RUN, { runId: run.id });
      return run;
    });
  }

  /** A new webhook secret, answered once; the old one stops working at once. */
  rotateWebhookSecret(actor: SpaceActor, id: string): string {
    if (isServiceAccount(actor)) throw forbidden("only a person can change a webhook's secret");
    const secret = newWebhookSecret();
    const ciphertext = this.encrypt(secret);
    this.uow.write((unit) => {
      const current = this.require(actor, id);
      if (current.kind !== "webhook") throw invalid("not a webhook automation");
      const next = { ...current, webhookSecretCiphertext: ciphertext, updatedAt: Date.now() };
      this.store.save(current, next);
      unit.emit(spaceEvent(actor, "automation.updated", presentAutomation(next)));
    });
    return secret;
  }

  // Config and schedule

  /**
   * `next` with its `config_problem` and `next_run_at` worked out: the config is checked (a key of a wrong
   * type or value is a 400 here), and an active automation whose config is complete and has a cron is scheduled.
   * A schedule that did not change keeps its next run (a tick due now is not skipped by an edit of the name).
   */
  private settle(before: AutomationRow | undefined, next: AutomationRow): AutomationRow {
    const config = JSON.parse(next.config) as Record<string, unknown>;
    const configProblem = checkConfig(next.kind, config, {
      place: next,
      world: this.world,
      writing: before === undefined || before.config !== next.config,
      hasOauthToken: next.oauthTokenCiphertext !== null,
    });
    return { ...next, configProblem, nextRunAt: this.nextRunOf(before, { ...next, configProblem }, config) };
  }

  /** The next run of `next`, keeping `before`'s when the schedule is the same. */
  private nextRunOf(before: AutomationRow | undefined, next: AutomationRow, config: Record<string, unknown>) {
    if (next.status !== "active" || next.configProblem !== null) return null;
    const schedule = (row: AutomationRow) => {
      const c = JSON.parse(row.config) as { cron?: unknown; timezone?: unknown };
      return `${row.status}|${String(c.cron)}|${String(c.timezone)}|${row.configProblem}`;
    };
    if (before?.nextRunAt != null && schedule(before) === schedule(next)) return before.nextRunAt;
    return nextTick(config as { cron?: string; timezone?: string }, new Date());
  }

  /** Checks a stored config again after the space changed (`listen`); saves and announces what changed. */
  private recheck(unit: Unit, row: AutomationRow): void {
    const config = JSON.parse(row.config) as Record<string, unknown>;
    const configProblem = checkConfig(row.kind, config, {
      place: row,
      world: this.world,
      writing: false,
      hasOauthToken: row.oauthTokenCiphertext !== null,
    });
    if (configProblem === row.configProblem) return;
    // A mended config (a column named again) is scheduled again; a broken one stops.
    const next = { ...row, configProblem, updatedAt: Date.now() };
    next.nextRunAt = this.nextRunOf(row, next, config);
    this.store.save(row, next);
    unit.emit(automationEvent(next, "automation.updated", presentAutomation(next)));
  }

  private require(actor: SpaceActor, id: string): AutomationRow {
    const row = isUuid(id) ? this.store.get(actor.space.id, id) : undefined;
    if (!row) throw automationNotFound();
    return row;
  }

  /** A create body's `status`: omitted is `draft`; anything but the four settable values is a 400. */
  private settableStatus(status: unknown): string {
    if (status === undefined) return "draft";
    if (typeof status === "string" && (SETTABLE_STATUSES as readonly string[]).includes(status)) return status;
    throw invalidStatus();
  }

  private encrypt(token: string): string {
    if (!this.encryptionKey) throw new Error("the encryption key is not loaded");
    return encryptSecret(this.encryptionKey, token);
  }
}

/**
 * The config after a PATCH: `config` replaces it. A service account's `description` is merged into it as
 * `proposal_note`, as on create: staff say why they changed it.
 */
function nextConfig(actor: SpaceActor, current: AutomationRow, input: PatchAutomationIn): string {
  if (input.description === undefined || !isServiceAccount(actor)) {
    return input.config === undefined ? current.config : JSON.stringify(input.config);
  }
  const config = input.config ?? (JSON.parse(current.config) as Record<string, unknown>);
  return JSON.stringify({ ...config, proposal_note: input.description });
}

function invalidStatus() {
  return invalid("status: must be draft, pending_approval, active or paused");
}
