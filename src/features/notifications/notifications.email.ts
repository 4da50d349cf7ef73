/**
 * Email (contract §10): invites that name an address, and the inbox items left unread, per each person's `email`
 * setting. Nothing is sent without `TANDEM_SMTP_URL`.
 *
 * Items are emailed by a sweep, every `sweepMs`, over the items neither read nor emailed (`emailed_at`, a column
 * of the inbox, indexed for exactly this): restart-safe, since what is left to email is what the table says.
 * - `digest`: once a person's oldest such item has waited 10 minutes, one email lists everything of theirs that
 *   has waited at least a minute, so a steady stream of items makes a digest at most every 10 minutes or so;
 * - `all`: each item alone, once it has waited a minute (one read at once in the app is not emailed);
 * - `off`: nothing; the items are passed over.
 * Access is checked again at send time: an item of a space the person no longer sees, or of an organization they
 * left, is passed over, never sent. Items are marked emailed once the SMTP server took the email: a transient
 * failure (the server down, a refused login) leaves them for a later sweep, after a pause that doubles up to 15
 * minutes; a 5xx refusal of the message or recipient is permanent and passes them over. A crash between the
 * server's acceptance and the mark is the one way an email goes twice.
 *
 * With several nodes (PostgreSQL), every node sweeps, one at a time: a sweep first takes a lease (db/pg/cluster.ts)
 * and keeps it before each email, so no other node reads the items it is emailing before it marks them; it gives
 * the lease up when it is done. A node killed mid-sweep holds it until it is counted gone (5 s) or, should it be
 * stuck yet alive, until `SWEEP_LEASE_MS` passed, longer than any one email may take.
 */
import type { Lease } from "../../db/pg/cluster";
import type { Logger } from "../../lib/log";
import { type Email, MailError, type Mailer } from "../../providers/mail";
import type { InboxService } from "../inbox/inbox.service";
import { digestEmail, inviteEmail, itemEmail, type Notice } from "./notifications.render";
import type { NotificationsWorld } from "./notifications.service";

/** A digest goes once a person's oldest unread, unemailed item has waited this long (contract §10). */
export const DIGEST_AFTER_MS = 10 * 60 * 1000;
/** With `all`, an item is emailed once it has waited this long (and is in a digest only after it too). */
export const ALONE_AFTER_MS = 60 * 1000;
/** Items older than this when first looked at (SMTP set up later, a long outage) are passed over, not emailed. */
export const MAX_AGE_MS = 7 * 24 * 3600 * 1000;
/** How often the sweep looks by default. */
export const SWEEP_MS = 30 * 1000;
/** Items read per sweep; the rest wait for the next. */
const BATCH = 2000;
/** The most items a digest lists; it counts the rest. */
const LISTED = 50;
const FIRST_PAUSE_MS = 30 * 1000;
const LONGEST_PAUSE_MS = 15 * 60 * 1000;
/** How long a stop waits for a sweep under way (an SMTP server can take a minute to time out). */
const STOP_GRACE_MS = 3000;
/**
 * How long a node's sweep holds the lease from each email on: past what one email can take (nodemailer gives up
 * after 10 s to connect, 10 s for the greeting and 60 s of silence within a command).
 */
export const SWEEP_LEASE_MS = 5 * 60 * 1000;

type Item = ReturnType<InboxService["awaitingEmail"]>[number];

/** What the invites feature hands over once an invite is committed. */
export interface InviteToMail {
  id: string;
  orgId: string;
  email: string;
  createdBy: string | null;
  expiresAt: number;
}

export interface EmailOptions {
  /** How often the sweep looks (tests shorten it). */
  sweepMs?: number;
}

export class EmailService {
  private timer: ReturnType<typeof setInterval> | null = null;
  private sweeping: Promise<void> | null = null;
  private pausedUntil = 0;
  private pause = 0;

  constructor(
    /** Null without `TANDEM_SMTP_URL`: nothing is sent. */
    private readonly mailer: Mailer | null,
    private readonly inbox: Pick<InboxService, "awaitingEmail" | "markEmailed">,
    private readonly world: NotificationsWorld,
    private readonly log: Logger | null,
    private readonly options: EmailOptions = {},
    /** The sweep's lease when other nodes sweep too; null with one node (SQLite): its sweep is the only one. */
    private readonly lease: Lease | null = null,
  ) {}

  /** Whether email is set up (`TANDEM_SMTP_URL`). */
  get enabled(): boolean {
    return this.mailer !== null;
  }

  /** Starts the sweep; without SMTP there is nothing to start. */
  start(): void {
    if (!this.mailer || this.timer) return;
    this.timer = setInterval(() => void this.sweep(), this.options.sweepMs ?? SWEEP_MS);
    this.timer.unref?.();
  }

  /**
   * Stops the sweep, gives the one under way a few seconds to finish, and closes the SMTP connections. An email
   * cut off here is sent again by the next start: its items are marked only once the server took it.
   */
  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    if (this.sweeping) {
      let timeout: ReturnType<typeof setTimeout> | undefined;
      const grace = new Promise<void>((resolve) => {
        timeout = setTimeout(resolve, STOP_GRACE_MS);
      });
      await Promise.race([this.sweeping, grace]);
      clearTimeout(timeout);
    }
    this.mailer?.close();
  }

  /** One sweep; a sweep under way is not run twice. */
  sweep(): Promise<void> {
    if (!this.mailer || Date.now() < this.pausedUntil) return Promise.resolve();
    this.sweeping ??= this.sweepOnce()
      .catch((err) => this.log?.error({ err }, "emailing inbox items failed; trying again later"))
      .finally(() => {
        this.sweeping = null;
      });
    return this.sweeping;
  }

  /**
   * Emails an invite with its link, after the invite committed. A failure is logged (without the token) and
   * changes nothing: the invite stands, and its link can still be shared by hand.
   */
  sendInvite(invite: InviteToMail, token: string): void {
    if (!this.mailer) return;
    const mailer = this.mailer;
    void (async () => {
      try {
        const inviter = invite.createdBy ? this.world.user(invite.createdBy) : undefined;
        const content = inviteEmail({
          base: this.world.publicUrl(),
          organizationName: this.world.organizationName(invite.orgId),
          inviterName: inviter?.displayName ?? null,
          token,
          expiresAt: invite.expiresAt,
        });
        await mailer.send({ to: invite.email, ...content });
        this.log?.info({ invite_id: invite.id }, "invite emailed");
      } catch (error) {
        this.log?.warn({ invite_id: invite.id, ...why(error) }, "the invite could not be emailed");
      }
    })();
  }

  /** One sweep, under the lease when there is one: another node's sweep under way is left alone. */
  private async sweepOnce(): Promise<void> {
    if (!this.lease) return this.sweepItems();
    if (!this.lease.take()) return;
    try {
      await this.sweepItems();
    } finally {
      this.lease.release();
    }
  }

  private async sweepItems(): Promise<void> {
    const now = Date.now();
    const items = this.inbox.awaitingEmail(now - ALONE_AFTER_MS, BATCH);
    const people = new Map<string, Item[]>();
    for (const item of items) {
      const key = `${item.orgId} ${item.userId}`;
      const list = people.get(key);
      if (list) list.push(item);
      else people.set(key, [item]);
    }
    for (const list of people.values()) {
      if (!(await this.emailPerson(list, now))) return;
    }
  }

  /** Emails one person's items (oldest first) as their setting says; false when SMTP failed and the sweep stops. */
  private async emailPerson(items: Item[], now: number): Promise<boolean> {
    const first = items[0] as Item;
    const actor = this.world.memberActor(first.orgId, first.userId);
    const user = this.world.user(first.userId);
    if (!actor || !user) {
      this.inbox.markEmailed(items.map((i) => i.id));
      return true;
    }
    const setting = this.world.settings(actor).email;
    const spaces = this.world.spaceNames(actor);
    const passed: string[] = [];
    const due: Item[] = [];
    for (const item of items) {
      if (setting === "off" || !spaces.has(item.spaceId) || item.createdAt < now - MAX_AGE_MS) passed.push(item.id);
      else due.push(item);
    }
    this.inbox.markEmailed(passed);
    if (due.length === 0) return true;
    const base = this.world.publicUrl();
    const organizationName = this.world.organizationName(first.orgId);
    const notice = (item: Item): Notice => ({
      kind: item.kind,
      spaceId: item.spaceId,
      spaceName: spaces.get(item.spaceId) ?? "",
      actorName: item.actorUserId ? (this.world.user(item.actorUserId)?.displayName ?? null) : null,
      chatRoomId: item.chatRoomId,
      taskId: item.taskId,
      automationId: item.automationId,
      proposalId: item.proposalId,
      summary: item.summary,
    });
    if (setting === "all") {
      for (const item of due) {
        const email = itemEmail({ base, organizationName, notice: notice(item) });
        if (!(await this.send({ to: user.email, ...email }, [item.id], first.userId))) return false;
      }
      return true;
    }
    if ((due[0] as Item).createdAt > now - DIGEST_AFTER_MS) return true;
    const email = digestEmail({
      base,
      organizationName,
      recipientName: user.displayName,
      notices: due.slice(0, LISTED).map(notice),
      total: due.length,
    });
    return this.send(
      { to: user.email, ...email },
      due.map((i) => i.id),
      first.userId,
    );
  }

  /**
   * Sends and marks the items emailed; false after a transient failure (the sweep pauses), or when the lease went
   * to another node (a sweep that took too long: the other node emails what is left).
   */
  private async send(email: Email, ids: string[], userId: string): Promise<boolean> {
    if (this.lease && !this.lease.take()) return false;
    try {
      await (this.mailer as Mailer).send(email);
    } catch (error) {
      if (error instanceof MailError && error.permanent) {
        this.log?.warn({ user_id: userId, ...why(error) }, "the SMTP server refused an email for good; not sent");
        this.inbox.markEmailed(ids);
        return true;
      }
      this.pause = Math.min(this.pause === 0 ? FIRST_PAUSE_MS : this.pause * 2, LONGEST_PAUSE_MS);
      this.pausedUntil = Date.now() + this.pause;
      this.log?.warn({ ...why(error), retry_in_s: this.pause / 1000 }, "sending email failed; trying again later");
      return false;
    }
    this.pause = 0;
    this.inbox.markEmailed(ids);
    this.log?.info({ user_id: userId, items: ids.length }, "inbox items emailed");
    return true;
  }
}

/** A send failure for the log: never the message's content or a credential. */
function why(error: unknown): Record<string, unknown> {
  if (error instanceof MailError) {
    return { err: { message: error.message }, smtp_code: error.code, smtp_status: error.responseCode };
  }
  return { err: { message: error instanceof Error ? error.message : String(error) } };
}
