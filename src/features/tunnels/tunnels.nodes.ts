/**
 * Tunnels across nodes (contract §9, PostgreSQL): a connector's socket is held by one node, and a visit may reach
 * any. Which node holds each tunnel is a row of `tunnel_holders`, written in the transaction that starts the
 * connection's run and removed in the one that ends it, both under the write lock, so two nodes never both take
 * a tunnel, and another member's connector is refused on every node while one is up. A visit reaching a node
 * without the connector is checked there as any visit (who may see it, the body's declared size), and carried
 * to the holder, at the `TANDEM_NODE_URL` it registered (db/pg/cluster.ts), as one request signed with the
 * shared secret (lib/node-requests.ts): the request's head exactly as the visitor's node made it (tunnels.policy.ts
 * applies there alone), then its body, streamed. The holder relays it over its connector as a local visit, with
 * its limits and timeout, and answers the connector's head then its body, streamed; its own refusals (502, 504,
 * 413, 503) come back as they are. A holder whose node stopped beating holds nothing: the visit answers 502
 * `tunnel not connected`, as with no connector. A forwarded request is relayed by the holder's own connection
 * or refused: it is never forwarded again.
 *
 * One-time links wait in `tunnel_links` too, so a link one node made opens on any.
 */

import { AppError, type ErrorKind, invalid, STATUS_OF } from "../../core/errors";
import type { Db } from "../../db/client";
import { LIVE_NODES_SQL } from "../../db/pg/cluster";
import { NodeRequests } from "../../lib/node-requests";
import { type Answer, type ExchangeOptions, notConnected } from "./tunnels.connection";
import type { Link, LinkBook } from "./tunnels.passes";
import {
  headPayload,
  MAX_HEAD_BYTES,
  ProtocolError,
  parseRequestHead,
  parseResponseHead,
  type RequestHead,
} from "./tunnels.protocol";

/** What the tunnels ask of the cluster (db/pg/cluster.ts). */
export interface NodeLink {
  /** This node's id. */
  readonly node: string;
  /** Inside a write's transaction: the other nodes hear `body` once it commits. */
  send(kind: string, body: unknown): void;
  on(kind: string, handler: (body: unknown) => void): void;
}

/** The node holding a tunnel's connector, as a visit reaching another node is carried to it. */
export interface Holder {
  node: string;
  url: string;
  userId: string;
}

/** Where a node takes the visits another forwards: the automation id follows. */
export const NODE_TUNNEL_PREFIX = "/api/v1/cluster/tunnels/";

/** The type of a forwarded request's and answer's body: a head (length-prefixed JSON), then the body. */
const FRAMED = "application/x-tandem-tunnel-exchange";

/** How long past the answer timeout a visitor's node waits for a holder that answers nothing, not even its 504. */
const HOLDER_GRACE_MS = 5000;

/** The cluster message that tells the node of an older connector a newer one took the tunnel. */
const TAKEN = "tunnel.taken";

/** Refusals of the holder that reach the visitor as they are: the ones a local relay answers. */
const PASSED: ReadonlySet<ErrorKind> = new Set(["bad_gateway", "gateway_timeout", "too_large", "unavailable"]);

export class TunnelNodes implements LinkBook {
  private readonly requests: NodeRequests;

  constructor(
    private readonly db: Db,
    private readonly cluster: NodeLink,
    secret: Uint8Array,
    /** Where a holder that failed to answer is reported. */
    private readonly report: (error: unknown, message: string) => void,
  ) {
    this.requests = new NodeRequests(secret, cluster.node);
  }

  private q(sql: string) {
    return this.db.$client.query(sql);
  }

  // Who holds each tunnel

  /**
   * In the transaction that starts the run `runId` of a connection by `userId`: this node holds the tunnel from
   * now, and the node of an older connector of the same member closes it. False (nothing written) when another
   * member's connector holds it on a live node.
   */
  claim(automationId: string, userId: string, runId: string): boolean {
    const current = this.q(
      `SELECT h.node_id, h.user_id, n.id IS NOT NULL AS live FROM tunnel_holders h
      LEFT JOIN (${LIVE_NODES_SQL}) n ON n.id = h.node_id WHERE h.automation_id = ?`,
    ).get(automationId) as { node_id: string; user_id: string; live: number } | null;
    if (current?.live && current.user_id !== userId) return false;
    this.q(
      `INSERT INTO tunnel_holders (automation_id, node_id, user_id, run_id, since) VALUES (?, ?, ?, ?, ?)
      ON CONFLICT (automation_id) DO UPDATE SET node_id = excluded.node_id, user_id = excluded.user_id,
        run_id = excluded.run_id, since = excluded.since`,
    ).run(automationId, this.cluster.node, userId, runId, Date.now());
    if (current?.live && current.node_id !== this.cluster.node) {
      this.cluster.send(TAKEN, { automation_id: automationId, run_id: runId });
    }
    return true;
  }

  /** In the transaction that ends the run `runId`: the tunnel is no longer held by it. */
  release(automationId: string, runId: string): void {
    this.q("DELETE FROM tunnel_holders WHERE automation_id = ? AND run_id = ?").run(automationId, runId);
  }

  /** Another node took the tunnel: `taken(automationId, runId)` closes this node's older connector. */
  onTaken(taken: (automationId: string, runId: string) => void): void {
    this.cluster.on(TAKEN, (body) => {
      const { automation_id, run_id } = body as { automation_id: string; run_id: string };
      taken(automation_id, run_id);
    });
  }

  /** The live node other than this one that holds the tunnel, or null: no one, this node, or a node gone. */
  holder(automationId: string): Holder | null {
    const row = this.q(
      `SELECT h.node_id, h.user_id, n.url FROM tunnel_holders h JOIN (${LIVE_NODES_SQL}) n ON n.id = h.node_id
      WHERE h.automation_id = ?`,
    ).get(automationId) as { node_id: string; user_id: string; url: string } | null;
    if (!row || row.node_id === this.cluster.node) return null;
    return { node: row.node_id, url: row.url, userId: row.user_id };
  }

  /** Whether the user holding a tunnel on a live node, if any, is someone other than `userId`. */
  heldByAnother(automationId: string, userId: string): boolean {
    const holder = this.holder(automationId);
    return holder !== null && holder.userId !== userId;
  }

  /** The runs of connections live nodes hold (the others were left by a node that is gone). */
  heldRuns(): Set<string> {
    const rows = this.q(
      `SELECT h.run_id FROM tunnel_holders h JOIN (${LIVE_NODES_SQL}) n ON n.id = h.node_id`,
    ).all() as { run_id: string }[];
    return new Set(rows.map((row) => row.run_id));
  }

  // One-time links, for every node

  put(hash: string, link: Link): void {
    const { userId, serviceAccountId, sessionId } = link.principal;
    this.q("DELETE FROM tunnel_links WHERE expires_at < ?").run(Date.now());
    this.q(
      `INSERT INTO tunnel_links (token_hash, automation_id, user_id, service_account_id, session_id, expires_at)
      VALUES (?, ?, ?, ?, ?, ?)`,
    ).run(hash, link.automationId, userId, serviceAccountId, sessionId ?? null, link.expiresAt);
  }

  take(hash: string, automationId: string): Link | undefined {
    const row = this.q(
      `DELETE FROM tunnel_links WHERE token_hash = ? AND automation_id = ?
      RETURNING user_id, service_account_id, session_id, expires_at`,
    ).get(hash, automationId) as {
      user_id: string;
      service_account_id: string | null;
      session_id: string | null;
      expires_at: number;
    } | null;
    if (!row) return undefined;
    const principal = {
      userId: row.user_id,
      serviceAccountId: row.service_account_id,
      sessionId: row.session_id ?? undefined,
    };
    return { principal, automationId, expiresAt: row.expires_at };
  }

  // The visitor's node: a visit carried to the holder

  /**
   * Carries a visit to `holder` and answers what its connector answered, streamed: its head within the answer
   * timeout (the holder's 504 otherwise), the body as it comes. A holder that cannot be reached, or that fails,
   * answers as no connector: 502 `tunnel not connected`.
   */
  async forward(
    holder: Holder,
    automationId: string,
    head: RequestHead,
    body: ReadableStream<Uint8Array> | null,
    options: ExchangeOptions,
  ): Promise<Answer> {
    const path = `${NODE_TUNNEL_PREFIX}${automationId}`;
    const stop = new AbortController();
    // The visitor going away ends the forwarded request, whose end the holder takes as the visitor's.
    const onAbort = () => stop.abort(options.signal.reason);
    options.signal.addEventListener("abort", onAbort, { once: true });
    let late = false;
    const timer = setTimeout(() => {
      late = true;
      stop.abort();
    }, options.timeoutMs + HOLDER_GRACE_MS);
    try {
      const response = await fetch(`${holder.url}${path}`, {
        method: "POST",
        headers: { ...this.requests.sign("POST", path, holder.node), "content-type": FRAMED },
        body: framed(headPayload(head), body),
        duplex: "half",
        signal: stop.signal,
        redirect: "manual",
      } as RequestInit);
      if (response.status !== 200 || response.headers.get("content-type") !== FRAMED) {
        throw await this.refusal(response, holder);
      }
      const { head: answerHead, rest } = await unframe(response.body as ReadableStream<Uint8Array>);
      const answer = parseResponseHead(answerHead);
      const bodyless = head.method === "HEAD" || answer.status === 204 || answer.status === 304;
      if (bodyless) void rest.cancel().catch(() => undefined);
      return { ...answer, body: bodyless ? null : rest };
    } catch (error) {
      options.signal.removeEventListener("abort", onAbort);
      if (options.signal.aborted) throw error;
      if (late) {
        throw new AppError("gateway_timeout", `tunnel did not answer within ${Math.round(options.timeoutMs / 1000)} s`);
      }
      if (error instanceof AppError) throw error;
      this.report(error, `the node holding a tunnel (${holder.url}) could not be reached`);
      throw notConnected();
    } finally {
      clearTimeout(timer);
    }
  }

  /** What a holder's answer other than a relayed one means for the visitor. */
  private async refusal(response: Response, holder: Holder): Promise<AppError> {
    const message = await response
      .json()
      .then((body) => (body as { error?: unknown }).error)
      .catch(() => undefined);
    const kind = (Object.keys(STATUS_OF) as ErrorKind[]).find((k) => STATUS_OF[k] === response.status);
    if (kind && PASSED.has(kind) && typeof message === "string") return new AppError(kind, message);
    this.report(
      new Error(`status ${response.status}`),
      `the node holding a tunnel (${holder.url}) refused a forwarded visit: do the nodes share JWT_SECRET, and their clocks agree?`,
    );
    return notConnected();
  }

  // The holder's node: a visit another node carried here

  /** Whether `request` is a node's of this install, signed for this node (and not seen before). */
  accepts(request: Request): boolean {
    return this.requests.verify(request) !== null;
  }

  /** The visit a node forwarded: its head, and its body streaming (null when it has none). */
  async received(request: Request): Promise<{ head: RequestHead; body: ReadableStream<Uint8Array> | null }> {
    if (request.body === null) throw invalid("a forwarded visit has a head");
    try {
      const { head, rest } = await unframe(request.body);
      const parsed = parseRequestHead(head);
      if (!parsed.body) void rest.cancel().catch(() => undefined);
      return { head: parsed, body: parsed.body ? rest : null };
    } catch (error) {
      if (error instanceof ProtocolError) throw invalid(error.message);
      throw error;
    }
  }

  /** The connector's answer, for the node that forwarded the visit: its head, then its body as it streams. */
  answer(answer: Answer): Response {
    const head = headPayload({ status: answer.status, headers: answer.headers });
    return new Response(framed(head, answer.body), { status: 200, headers: { "content-type": FRAMED } });
  }
}

/** A body of its own: `head` (4 bytes of length, big-endian, then the bytes), then `body`'s bytes as they come. */
function framed(
  head: Uint8Array,
  body: ReadableStream<Uint8Array> | null,
): ReadableStream<Uint8Array> | Uint8Array<ArrayBuffer> {
  const first = new Uint8Array(4 + head.byteLength);
  new DataView(first.buffer).setUint32(0, head.byteLength);
  first.set(head, 4);
  return body === null ? first : streamOf(first, body.getReader());
}

/** Splits a `framed` body: its head's bytes, and the rest, streaming on as it is read. */
async function unframe(
  body: ReadableStream<Uint8Array>,
): Promise<{ head: Uint8Array; rest: ReadableStream<Uint8Array> }> {
  const reader = body.getReader();
  let buffered = new Uint8Array(0);
  let length = -1;
  while (length < 0 || buffered.byteLength < 4 + length) {
    const next = await reader.read();
    if (next.done) {
      void reader.cancel().catch(() => undefined);
      throw new ProtocolError("a forwarded exchange ended before its head");
    }
    const joined = new Uint8Array(buffered.byteLength + next.value.byteLength);
    joined.set(buffered);
    joined.set(next.value, buffered.byteLength);
    buffered = joined;
    if (length < 0 && buffered.byteLength >= 4) {
      length = new DataView(buffered.buffer, buffered.byteOffset, 4).getUint32(0);
      if (length > MAX_HEAD_BYTES) {
        void reader.cancel().catch(() => undefined);
        throw new ProtocolError("head too large");
      }
    }
  }
  return { head: buffered.slice(4, 4 + length), rest: streamOf(buffered.slice(4 + length), reader) };
}

/**
 * `first`, then what `reader` reads, pulled one piece at a time as the consumer asks (so the pace is the slowest
 * reader's, end to end); cancelling it cancels the reader's source.
 */
function streamOf(first: Uint8Array, reader: ReadableStreamDefaultReader<Uint8Array>): ReadableStream<Uint8Array> {
  let pending: Uint8Array | null = first.byteLength > 0 ? first : null;
  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        if (pending) {
          controller.enqueue(pending);
          pending = null;
          return;
        }
        const next = await reader.read();
        if (next.done) controller.close();
        else controller.enqueue(next.value);
      },
      cancel: (reason) => reader.cancel(reason),
    },
    { highWaterMark: 0 },
  );
}
