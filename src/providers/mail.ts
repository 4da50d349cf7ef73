/**
 * Email through the organization's SMTP server (`TANDEM_SMTP_URL`), by nodemailer: STARTTLS, TLS, the AUTH
 * methods and MIME encoding are its work. A password is never sent in clear: with one in the URL, `smtp://` to
 * any host but a loopback one requires STARTTLS (a `?requireTLS=false` in the URL is the operator's explicit
 * choice otherwise). Nothing here logs: errors are reduced to a code, a status and a message that hold no
 * credential.
 */
import type { Mail } from "nodemailer";
import type { SmtpSettings } from "../config";
import { isLoopbackHost } from "../lib/net";

/** One email, as both plain text and HTML. */
export interface Email {
  to: string;
  subject: string;
  text: string;
  html: string;
}

/** A send that failed; `permanent` when the server refused this message or recipient for good (5xx). */
export class MailError extends Error {
  constructor(
    message: string,
    readonly permanent: boolean,
    /** nodemailer's code (`EAUTH`, `ECONNECTION`, `EENVELOPE`…) and the SMTP reply code, for the log. */
    readonly code: string | null,
    readonly responseCode: number | null,
  ) {
    super(message);
  }
}

/** How long a connection may take to open, to greet, and to stay silent mid-command. */
const CONNECTION_TIMEOUT_MS = 10_000;
const GREETING_TIMEOUT_MS = 10_000;
const SOCKET_TIMEOUT_MS = 60_000;

/** Sends email through one SMTP server, over at most two pooled connections. */
export class Mailer {
  private readonly transport: Mail;

  constructor(settings: SmtpSettings) {
    const url = new URL(settings.url);
    const carriesPassword = url.password !== "";
    // nodemailer is loaded here, by a server that sends email: the others keep neither its code nor its objects.
    const nodemailer = require("nodemailer") as typeof import("nodemailer");
    this.transport = nodemailer.createTransport(
      {
        url: settings.url,
        pool: true,
        maxConnections: 2,
        requireTLS: url.protocol === "smtp:" && carriesPassword && !isLoopbackHost(url.hostname),
        connectionTimeout: CONNECTION_TIMEOUT_MS,
        greetingTimeout: GREETING_TIMEOUT_MS,
        socketTimeout: SOCKET_TIMEOUT_MS,
        logger: false,
        debug: false,
      },
      { from: settings.from },
    );
  }

  /** Sends one email; throws MailError. */
  async send(email: Email): Promise<void> {
    try {
      await this.transport.sendMail({
        to: email.to,
        subject: email.subject,
        text: email.text,
        html: email.html,
        // Replies to a notification would reach whoever reads the sender's mailbox: none is expected.
        headers: { "Auto-Submitted": "auto-generated" },
      });
    } catch (error) {
      throw mailError(error);
    }
  }

  /** Closes the pooled connections. */
  close(): void {
    this.transport.close();
  }
}

/** What nodemailer threw, as a MailError whose message holds no credential. */
function mailError(error: unknown): MailError {
  const e = (typeof error === "object" && error !== null ? error : {}) as {
    code?: unknown;
    responseCode?: unknown;
    message?: unknown;
  };
  const code = typeof e.code === "string" ? e.code : null;
  const responseCode = typeof e.responseCode === "number" ? e.responseCode : null;
  // A 5xx reply to the envelope or the message refuses this email for good; a refused login, a 4xx or a
  // connection that failed are the server's state, and pass.
  const permanent = responseCode !== null && responseCode >= 500 && (code === "EENVELOPE" || code === "EMESSAGE");
  const message = typeof e.message === "string" ? (e.message.split("\n")[0] ?? "") : "sending failed";
  return new MailError(message.slice(0, 300), permanent, code, responseCode);
}
