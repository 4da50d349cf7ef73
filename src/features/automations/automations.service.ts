/**
 * Automations of a space (api-spec §3, §4; contract §4). Running them comes later: what a runner needs (the
 * config, the encrypted OAuth token, `last_run_at`, `last_error`) is stored now.
 */

import type { SpaceActor } from "../../core/actor";
import { invalid, notFound } from "../../core/errors";
import { spaceEvent } from "../../core/events";
import type { UnitOfWork } from "../../db/unit";
import { encryptSecret } from "../../lib/encryption";
import { isUuid, newId } from "../../lib/ids";
import {
  assertMayDelete,
  assertMayReview,
  assertPendingApproval,
  isServiceAccount,
  oauthTokenOf,
} from "./automations.policy";
import { presentAutomation } from "./automations.present";
import { type CreateAutomationIn, type PatchAutomationIn, SETTABLE_STATUSES } from "./automations.schemas";
import type { AutomationRow, AutomationsStore } from "./automations.store";

const automationNotFound = () => notFound("automation not found");

export class AutomationsService {
  constructor(
    private readonly uow: UnitOfWork,
    private readonly store: AutomationsStore,
    private readonly encryptionKey: Uint8Array | null,
  ) {}

  list(actor: SpaceActor): AutomationRow[] {
    return this.store.list(actor.space.id);
  }

  get(actor: SpaceActor, id: string): AutomationRow {
    return this.require(actor, id);
  }

  /**
   * A person's automation starts as `draft` or the status asked for; a service account's always as
   * `pending_approval`, with its `description` kept as `config.proposal_note`.
   */
  create(actor: SpaceActor, input: CreateAutomationIn): AutomationRow {
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
      createdAt: now,
      updatedAt: now,
    };
    return this.uow.write((unit) => {
      this.store.insert(row);
      unit.emit(spaceEvent(actor, "automation.updated", presentAutomation(row)));
      return row;
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
      this.store.save(current, next);
      unit.emit(spaceEvent(actor, "automation.updated", presentAutomation(next)));
      return next;
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
      this.store.save(current, next);
      unit.emit(spaceEvent(actor, "automation.updated", presentAutomation(next)));
      return next;
    });
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
