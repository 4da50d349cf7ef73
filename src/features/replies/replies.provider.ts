/** `ReplyProvider`: how the reply job asks a staff member's provider for an answer, whichever it is. */
import type { SpaceActor } from "../../core/actor";
import { type ProviderCall, ProviderError } from "../../providers/http";
import type { Completion, Work } from "../../providers/modelrouter";
import type { Provider } from "../integrations/integrations.schemas";
import { type IntegrationsService, UnreadableKey } from "../integrations/integrations.service";
import type { ServiceAccountRow } from "../staff/staff.service";
import type { ReplyPrompt } from "./replies.prompt";
import type { ReplyPayload } from "./replies.queue";

/** What a provider keeps in the job so that a restart resumes rather than repeats: a launched run, a tool loop. */
export type Resumable = Pick<ReplyPayload, "run" | "loop">;

/** What the job hands its provider for one answer. */
export interface AnswerContext {
  /** The staff member's account: its model, its repository. */
  readonly account: ServiceAccountRow;
  /** The staff member acting where it was asked. */
  readonly actor: SpaceActor;
  /** What the staff member is told and asked, and the tools it may call. */
  readonly prompt: ReplyPrompt;
  /** The job's deadline and lease (one signal), its pacing, and where a retry's pause is recorded. */
  readonly call: ProviderCall;
  /** What an earlier attempt of this job kept. */
  readonly saved: Resumable;
  /**
   * Runs `write` and keeps what it returns in the job, in one transaction: a restart resumes from there, and
   * whatever `write` stored (a linking message, a proposal) is never stored twice.
   */
  save<T extends Resumable>(write: () => T): T;
  /** Posts a message of the staff member where it was asked, in the caller's transaction; its id. */
  post(text: string): string;
  /** What the answer has cost and done so far: the activity entry keeps it whatever the outcome. */
  report(work: Work): void;
}

/** One provider's way of answering; the staff member's `provider` chooses it. */
export interface ReplyProvider {
  /** The model the activity entry names for this staff member. */
  model(account: ServiceAccountRow): string;
  /** The answer. A `ReplyFailure` or `ProviderError` is said in the reply; anything else the runner retries. */
  answer(context: AnswerContext): Promise<Completion>;
}

/** A failure said in the reply: provider errors, a missing key, the deadline. */
export class ReplyFailure extends Error {}

/** Whether a failure is said in the reply (rather than retried by the runner). */
export const isSaid = (error: unknown) => error instanceof ProviderError || error instanceof ReplyFailure;

/** Nothing done yet. */
export const noWork = (): Work => ({ promptTokens: 0, completionTokens: 0, toolCalls: [] });

/** The organization's key of `provider`, or a failure that says what to do about it. */
export function providerKey(
  integrations: Pick<IntegrationsService, "reveal">,
  orgId: string,
  provider: Provider,
  name: string,
): string {
  let key: string | null;
  try {
    key = integrations.reveal(orgId, provider);
  } catch (error) {
    if (!(error instanceof UnreadableKey)) throw error;
    throw new ReplyFailure(
      `the stored ${name} key cannot be read: the server runs with another encryption key than the one it was stored with (an owner can store it again under Integrations)`,
    );
  }
  if (!key) throw new ReplyFailure(`no ${name} key is set (an owner can add it under Integrations)`);
  return key;
}
