/**
 * The run job: one queued run of an automation, carried out (contract §8).
 *
 * Retry and idempotency rule:
 * - The run and its job are stored in the unit that asks for it (a tick, a webhook delivery, Run now); the job
 *   runs once across restarts and `kill -9`, under its lease.
 * - What a scheduled or webhook run does (its messages, its task) commits in the same unit as the run's end and
 *   the job's, guarded by the lease: a run posts once, even when its worker dies halfway.
 * - A social post calls out: a network error, a 429 or a 5xx is tried again up to 3 attempts, as the same run
 *   (`attempt` counts), pausing 2 then 8 s, or the `Retry-After` asked for up to 60 s; the pause is the job's
 *   `run_at`, so a restart waits it out. A network that took the post but whose answer was lost may see it
 *   again on the next attempt: the one step that cannot be undone is outside our transaction.
 * - Any other failure ends the run `failed` at once, saying why. A bug is retried by the runner, and after its
 *   last attempt the run fails with "something went wrong on our side" (`giveUp`).
 * - A run queued before its automation was paused, sent back or rejected does not start: it fails, "automation
 *   is not active". One already started finishes.
 */
import type { Access } from "../../core/access";
import { assertPermission } from "../../core/access";
import type { SpaceActor } from "../../core/actor";
import { AppError } from "../../core/errors";
import type { Unit } from "../../core/events";
import type { UnitOfWork } from "../../db/unit";
import { type JobContext, type JobKind, RetryLater } from "../../jobs/runner";
import { decryptSecret } from "../../lib/encryption";
import { postSocial } from "../../providers/social";
import { type ActionServices, act, renderTemplate } from "./automations.actions";
import { type AutomationConfig, DEFAULT_SOCIAL_ENDPOINT } from "./automations.config";
import { presentAutomation, presentRun } from "./automations.present";
import { AUTOMATION_RUN, automationEvent } from "./automations.service";
import type { AutomationRow, AutomationsStore, RunRow } from "./automations.store";
import { webhookSummary } from "./automations.webhook-text";

/** How many attempts a run that fails on an outside service gets, and the pauses between them. */
const ATTEMPTS = 3;
const PAUSES_MS = [2000, 8000];
const MAX_RETRY_AFTER_MS = 60_000;

/** How a run paces its retries; tests shrink the pauses. */
export interface RunTiming {
  /** Multiplies every pause between attempts (1 in production). */
  readonly pauseScale: number;
}

/** The end a run comes to. */
type Outcome = { status: "succeeded"; output: Record<string, unknown> } | { status: "failed"; error: string };

/** A failure said in the run, ending it at once. */
class RunFailure extends Error {}

export class AutomationRunJob implements JobKind {
  readonly kind = AUTOMATION_RUN;

  constructor(
    private readonly uow: UnitOfWork,
    private readonly store: AutomationsStore,
    private readonly access: Access,
    private readonly services: ActionServices,
    private readonly encryptionKey: Uint8Array | null,
    private readonly timing: RunTiming = { pauseScale: 1 },
  ) {}

  async run(context: JobContext): Promise<void> {
    const { runId } = JSON.parse(context.job.payload) as { runId: string };
    const found = this.load(runId);
    // Deleted with its automation: nothing to do.
    if (!found) return context.complete(() => undefined);
    const { run, automation } = found;
    if (run.status === "queued" && automation.status !== "active") {
      return this.end(context, runId, { status: "failed", error: "automation is not active" });
    }
    this.start(context, run, automation);
    let outcome: Outcome;
    try {
      const actor = this.actorOf(automation);
      if (automation.configProblem !== null && !this.textGiven(run)) throw new RunFailure(automation.configProblem);
      const config = JSON.parse(automation.config) as AutomationConfig;
      if (automation.kind === "social_post") {
        outcome = await this.socialPost(context, run, automation, config);
      } else if (automation.kind === "scheduled" || automation.kind === "webhook") {
        // Its messages and task commit with the run's end: a run that ends has posted, once.
        return this.endActing(context, runId, actor, automation, config, run);
      } else {
        throw new RunFailure("a tunnel runs while its connector is connected");
      }
    } catch (error) {
      if (context.signal.aborted || error instanceof RetryLater) throw error;
      if (!(error instanceof RunFailure || error instanceof AppError)) throw error;
      outcome = { status: "failed", error: error.message };
    }
    this.end(context, runId, outcome);
  }

  /** Every attempt failed on our side: the run fails, saying so. */
  giveUp(context: JobContext): void {
    const { runId } = JSON.parse(context.job.payload) as { runId: string };
    if (!this.load(runId)) {
      context.complete(() => undefined);
      return;
    }
    this.end(context, runId, { status: "failed", error: "something went wrong on our side" });
  }

  private load(runId: string): { run: RunRow; automation: AutomationRow } | undefined {
    const run = this.store.run(runId);
    const automation = run && this.store.byId(run.automationId);
    return run && automation ? { run, automation } : undefined;
  }

  /** The run has a text of its own (Run now of a social post without one in its config). */
  private textGiven(run: RunRow): boolean {
    return run.input !== null && typeof (JSON.parse(run.input) as { text?: unknown }).text === "string";
  }

  /** The person the automation speaks for (who approved it, else who made it active), acting in its space. */
  private actorOf(automation: AutomationRow): SpaceActor {
    const speaker = automation.reviewedByUserId ?? automation.createdByUserId;
    try {
      if (speaker === null) throw new RunFailure("no one who approved it remains");
      return this.access.spaceActor(
        { userId: speaker, serviceAccountId: null },
        automation.orgId,
        automation.spaceId,
        "member",
      );
    } catch (error) {
      if (error instanceof AppError) throw new RunFailure("the person who approved it can no longer act in this space");
      throw error;
    }
  }

  /** Marks the run running (its first start stamps `started_at` and the automation's `last_run_at`). */
  private start(context: JobContext, run: RunRow, automation: AutomationRow): void {
    this.uow.write((unit) => {
      const now = Date.now();
      const first = run.startedAt === null;
      const next: RunRow = {
        ...run,
        status: "running",
        attempt: context.job.attempts,
        startedAt: run.startedAt ?? now,
      };
      this.store.saveRun(run, next);
      if (!first) return;
      unit.emit(automationEvent(automation, "automation.run.started", presentRun(next)));
      const updated = { ...automation, lastRunAt: now };
      this.store.save(automation, updated);
      unit.emit(automationEvent(updated, "automation.updated", presentAutomation(updated)));
    });
  }

  /** A scheduled or webhook run: acts, and ends, in one unit; a refusal on the way ends it failed instead. */
  private endActing(
    context: JobContext,
    runId: string,
    actor: SpaceActor,
    automation: AutomationRow,
    config: AutomationConfig,
    run: RunRow,
  ): void {
    const message = this.messageOf(automation, config, run);
    const needs: ("chat.write" | "tasks.write")[] = [];
    if (message !== undefined || config.staff_prompt !== undefined) needs.push("chat.write");
    if (config.task) needs.push("tasks.write");
    try {
      context.complete((unit) => {
        for (const need of needs) assertPermission(actor, need);
        const output = act(this.services, actor, automation.id, config, message);
        this.finish(unit, runId, { status: "succeeded", output: { ...output } });
      });
    } catch (error) {
      if (!(error instanceof AppError)) throw error;
      this.end(context, runId, { status: "failed", error: error.message });
    }
  }

  /** The message a run posts: a scheduled one's `message`; a webhook's template, or the delivery in a few words. */
  private messageOf(automation: AutomationRow, config: AutomationConfig, run: RunRow): string | undefined {
    if (automation.kind !== "webhook") return config.message;
    if (config.channel === undefined) return undefined;
    const input = run.input === null ? {} : (JSON.parse(run.input) as { payload?: unknown; event?: string });
    return config.template !== undefined
      ? renderTemplate(config.template, input.payload)
      : webhookSummary(automation.name, input.event ?? null, input.payload);
  }

  /** A social post: the run's `text` (Run now) or the config's, to the endpoint, with the stored token. */
  private async socialPost(
    context: JobContext,
    run: RunRow,
    automation: AutomationRow,
    config: AutomationConfig,
  ): Promise<Outcome> {
    const given = run.input === null ? undefined : (JSON.parse(run.input) as { text?: string }).text;
    const text = given ?? config.text;
    if (!text) throw new RunFailure("config.text: required");
    if (automation.oauthTokenCiphertext === null) throw new RunFailure("oauth_token: required");
    if (!this.encryptionKey) throw new Error("the encryption key is not loaded");
    const token = decryptSecret(this.encryptionKey, automation.oauthTokenCiphertext);
    const endpoint = config.endpoint ?? DEFAULT_SOCIAL_ENDPOINT;
    const answer = await postSocial(endpoint, token, text, context.signal);
    if (answer.ok) return { status: "succeeded", output: { status: answer.status, id: answer.id } };
    const attempt = context.job.attempts;
    if (!answer.retryable || attempt >= ATTEMPTS) return { status: "failed", error: answer.message };
    const asked = answer.retryAfterMs === null ? null : Math.min(answer.retryAfterMs, MAX_RETRY_AFTER_MS);
    const pause = (asked ?? PAUSES_MS[attempt - 1] ?? PAUSES_MS[PAUSES_MS.length - 1]) as number;
    throw new RetryLater(Date.now() + pause * this.timing.pauseScale, answer.message);
  }

  /** Ends the run and its job in one unit. */
  private end(context: JobContext, runId: string, outcome: Outcome): void {
    context.complete((unit) => this.finish(unit, runId, outcome));
  }

  /** The run's end, in `unit`: its record, the automation's `last_error`, and their events. */
  private finish(unit: Unit, runId: string, outcome: Outcome): void {
    const run = this.store.run(runId);
    const automation = run && this.store.byId(run.automationId);
    if (!run || !automation) return;
    const now = Date.now();
    const ended: RunRow = {
      ...run,
      status: outcome.status,
      finishedAt: now,
      output: outcome.status === "succeeded" ? JSON.stringify(outcome.output) : null,
      error: outcome.status === "failed" ? outcome.error : null,
    };
    this.store.saveRun(run, ended);
    unit.emit(automationEvent(automation, "automation.run.finished", presentRun(ended)));
    const lastError = outcome.status === "failed" ? outcome.error : null;
    if (automation.lastError === lastError) return;
    // Bookkeeping of runs, not an edit: `updated_at` stays.
    const updated = { ...automation, lastError };
    this.store.save(automation, updated);
    unit.emit(automationEvent(updated, "automation.updated", presentAutomation(updated)));
  }
}
