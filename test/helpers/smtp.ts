/**
 * A real SMTP server on loopback (the `smtp-server` package) with AUTH on, over plain SMTP, that keeps every
 * email it accepted. Nothing of Tandem is stubbed: the server under test sends through nodemailer to it.
 */
import { setSystemTime } from "bun:test";
import { SMTPServer } from "smtp-server";

/** One accepted email, with its text and HTML parts decoded. */
export interface ReceivedEmail {
  from: string;
  to: string[];
  subject: string;
  text: string;
  html: string;
  raw: string;
}

export interface FakeSmtp {
  port: number;
  /** `smtp://user:password@127.0.0.1:PORT` */
  url: string;
  user: string;
  password: string;
  received: ReceivedEmail[];
  /** The emails to one address. */
  to(address: string): ReceivedEmail[];
  /** Answers the next `count` messages with a temporary failure (451). */
  failNext(count: number): void;
  /** Takes `ms` over each message from now on, as a distant server does. */
  slowDown(ms: number): void;
  stop(): Promise<void>;
}

/** Decodes quoted-printable. */
function fromQuotedPrintable(text: string): string {
  const bytes: number[] = [];
  const soft = text.replace(/=\r?\n/g, "");
  for (let i = 0; i < soft.length; i++) {
    const hex = soft.slice(i + 1, i + 3);
    if (soft[i] === "=" && /^[0-9A-F]{2}$/i.test(hex)) {
      bytes.push(Number.parseInt(hex, 16));
      i += 2;
    } else {
      bytes.push(...Buffer.from(soft[i] as string, "utf8"));
    }
  }
  return Buffer.from(bytes).toString("utf8");
}

/** The body of the MIME part of `type` in a raw email (a single part or a multipart/alternative). */
function partOf(raw: string, type: string): string {
  // Split on the message's own boundary: a quoted-printable line may start with "--" too (a token holding "--").
  const boundary = /boundary="?([^";\r\n]+)"?/i.exec(header(raw, "content-type"))?.[1];
  const escaped = boundary?.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  const parts = escaped ? raw.split(new RegExp(`\\r?\\n--${escaped}(?:--)?\\r?\\n?`)) : [raw];
  for (const part of parts) {
    const split = part.search(/\r?\n\r?\n/);
    const head = part.slice(0, split);
    if (!new RegExp(`content-type:\\s*${type}`, "i").test(head)) continue;
    let body = part.slice(split).replace(/^\r?\n\r?\n/, "");
    const encoding = /content-transfer-encoding:\s*([^\s;]+)/i.exec(head)?.[1]?.toLowerCase();
    if (encoding === "quoted-printable") body = fromQuotedPrintable(body);
    if (encoding === "base64") body = Buffer.from(body.replace(/\s+/g, ""), "base64").toString("utf8");
    return body.replace(/\r\n/g, "\n");
  }
  return "";
}

/** A header's value, unfolded. */
function header(raw: string, name: string): string {
  const head = raw.slice(0, raw.search(/\r?\n\r?\n/)).replace(/\r?\n[ \t]+/g, " ");
  return new RegExp(`^${name}:\\s*(.*)$`, "im").exec(head)?.[1]?.trim() ?? "";
}

export async function startFakeSmtp(user = "tandem", password = "s3cret-Pa55word"): Promise<FakeSmtp> {
  const received: ReceivedEmail[] = [];
  let failing = 0;
  let slow = 0;
  const server = new SMTPServer({
    logger: false,
    // Plain SMTP on loopback, as a local relay: no STARTTLS to offer, AUTH allowed without it.
    disabledCommands: ["STARTTLS"],
    allowInsecureAuth: true,
    authOptional: false,
    onAuth(auth, _session, callback) {
      if (auth.username === user && auth.password === password) callback(null, { user });
      else callback(new Error("Invalid username or password"));
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on("data", (chunk: Buffer) => chunks.push(chunk));
      stream.on("end", async () => {
        if (slow > 0) await Bun.sleep(slow);
        if (failing > 0) {
          failing--;
          const error = new Error("try again later") as Error & { responseCode: number };
          error.responseCode = 451;
          callback(error);
          return;
        }
        const raw = Buffer.concat(chunks).toString("utf8");
        received.push({
          from: header(raw, "From"),
          to: session.envelope.rcptTo.map((r) => r.address),
          subject: header(raw, "Subject"),
          text: partOf(raw, "text/plain"),
          html: partOf(raw, "text/html"),
          raw,
        });
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", () => resolve()));
  const port = (server.server.address() as { port: number }).port;
  return {
    port,
    url: `smtp://${user}:${password}@127.0.0.1:${port}`,
    user,
    password,
    received,
    to: (address) => received.filter((email) => email.to.includes(address)),
    failNext(count) {
      failing = count;
    },
    slowDown(ms) {
      slow = ms;
    },
    stop: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/**
 * Runs `wait` with this process's clock (its servers' too) `ms` ahead: what waited that long is due to be emailed.
 * The clock is set back after, so sessions stay valid.
 */
export async function later<T>(ms: number, wait: () => Promise<T>): Promise<T> {
  setSystemTime(new Date(Date.now() + ms));
  try {
    return await wait();
  } finally {
    setSystemTime();
  }
}
