/**
 * What every request goes through: security headers, a request id, the JSON body parser, the one error hook
 * and one log line. Registered first and globally, so it covers every feature module.
 */
import { Elysia } from "elysia";
import { AppError, STATUS_OF } from "../core/errors";
import type { AccessEntry } from "../lib/access-log";
import { type AddressRanges, forwardedClient, unmapped } from "../lib/addresses";
import type { Logger } from "../lib/log";
import { redactUrl } from "../lib/log";
import { parseJsonBody } from "./body";
import { installZodMessages } from "./validation";

/**
 * Headers on every response; API responses are never cached. (`frame-ancestors` is what stops framing; the
 * legacy X-Frame-Options would only repeat it, on every response.)
 */
export const SECURITY_HEADERS: Record<string, string> = {
  "x-content-type-options": "nosniff",
  "content-security-policy": "frame-ancestors 'none'",
  "referrer-policy": "no-referrer",
  "cache-control": "no-store",
};

/** The Content-Type of every JSON answer, written as the runtime writes it for the answers it serializes. */
export const JSON_TYPE = "application/json;charset=utf-8";

const JSON_HEADERS = { "content-type": JSON_TYPE };

/**
 * The address a request came from: its peer's, or, when the peer is a proxy of `TANDEM_TRUSTED_PROXIES`, the
 * client's as `X-Forwarded-For` names it (see `forwardedClient`); "" where the runtime does not know it.
 */
export function clientAddress(context: {
  server: { requestIP(request: Request): { address: string } | null } | null;
  request: Request;
  set: object;
}): string {
  const peer = context.server?.requestIP(context.request)?.address;
  if (peer === undefined) return "";
  const proxies = markOf(context.set)?.proxies ?? null;
  return proxies === null
    ? unmapped(peer)
    : forwardedClient(peer, context.request.headers.get("x-forwarded-for"), proxies);
}

/** An error response in the one shape the API uses, with the request id to quote when asking for help. */
export function errorResponse(status: number, body: Record<string, unknown>, requestId = ""): Response {
  const headers = requestId ? { ...JSON_HEADERS, "x-request-id": requestId } : JSON_HEADERS;
  return new Response(JSON.stringify(body), { status, headers });
}

/**
 * Routes whose handler streams the request body itself (uploads, a task's deliverable upload, a chat room's
 * uploads, raw file content, a webhook delivery, whose signature is over its raw bytes, a tunnel's visit that
 * another node forwarded). Elysia's per-route `parse: "none"` has no effect beside a global parser, so the one
 * global parser leaves these bodies unread. (A trailing slash reaches the same route.)
 */
const RAW_BODY_PATH =
  /\/(files\/(upload|[^/]+\/content)|deliverables\/upload|chat-rooms\/[^/]+\/uploads)\/?$|^\/api\/v1\/(hooks|cluster\/tunnels)\/[^/]+\/?$/;

/** Paths relayed elsewhere as they are, bodies streamed (a reverse tunnel's): never parsed here. */
const RELAYED_PREFIX = "/tunnels/";

/** The one DELETE route that takes a JSON body: a browser's push subscription names itself by its endpoint. */
const DELETE_BODY_PATH = /^\/api\/v1\/me\/push-subscriptions\/?$/;

interface RequestMark {
  id: string;
  start: number;
  /** The trusted proxies of the app (the same for every request), for `clientAddress`. */
  proxies: AddressRanges | null;
}

/** A request's mark rides on Elysia's per-request `set` object: cheaper than a WeakMap keyed by request. */
const markOf = (set: object) => (set as { mark?: RequestMark }).mark;

/** The id of the request whose Elysia `set` this is, for an error answer a route builds itself. */
export function requestIdOf(set: object): string {
  return markOf(set)?.id ?? "";
}

/**
 * The base plugin; `maxJsonBytes` caps JSON bodies (413 beyond); `trustedProxies` are the proxies whose
 * `X-Forwarded-For` names the client (`clientAddress`).
 */
export function httpBase(
  log: Logger,
  access: (entry: AccessEntry) => void,
  maxJsonBytes: number,
  trustedProxies: AddressRanges | null = null,
) {
  installZodMessages();
  const prefix = Math.random().toString(36).slice(2, 8);
  let seq = 0;

  /** The one access line of a request. */
  const line = (request: Request, mark: RequestMark | undefined, status: number): void => {
    const url = request.url;
    access({
      req_id: mark?.id ?? "",
      method: request.method,
      path: redactUrl(url.slice(url.indexOf("/", url.indexOf("//") + 2))),
      status,
      ms: mark ? Math.round((performance.now() - mark.start) * 10) / 10 : 0,
    });
  };

  return (
    new Elysia({ name: "http-base" })
      .headers(SECURITY_HEADERS)
      // Every request gets an id in the log; error answers carry it as X-Request-Id (a header on every
      // answer would cost a tenth of a small request's throughput).
      .onRequest(({ set }) => {
        (set as { mark?: RequestMark }).mark = {
          id: `${prefix}-${(++seq).toString(36)}`,
          start: performance.now(),
          proxies: trustedProxies,
        };
      })
      // A DELETE's body is not read, as a GET's is not, but on the one DELETE route that takes one.
      .onParse({ as: "global" }, async ({ request, path }) =>
        (request.method === "DELETE" && !DELETE_BODY_PATH.test(path)) ||
        RAW_BODY_PATH.test(path) ||
        path.startsWith(RELAYED_PREFIX)
          ? null
          : ((await parseJsonBody(request, maxJsonBytes)) ?? null),
      )
      .onError({ as: "global" }, ({ code, error, request, set }) => {
        const mark = markOf(set);
        const [status, body] = mapError(code, error, (err) => log.error({ req_id: mark?.id, err }, "unhandled error"));
        // Elysia adds `set.headers` to the answer this hook returns.
        if (error instanceof AppError && error.headers) Object.assign(set.headers, error.headers);
        line(request, mark, status);
        return errorResponse(status, body, mark?.id);
      })
      // Logged when the handler is done rather than after the response is sent: Elysia's after-response hook
      // costs a fifth of a small request's throughput. A failed request is logged by the error hook instead.
      .onAfterHandle({ as: "global" }, ({ request, set, response }) => {
        const code = (response as { code?: unknown } | undefined)?.code;
        const status =
          typeof code === "number"
            ? code
            : response === undefined && request.headers.get("upgrade") !== null
              ? 101 // a WebSocket route answers nothing once upgraded
              : typeof set.status === "number"
                ? set.status
                : 200;
        line(request, markOf(set), status);
      })
  );
}

/** What a request whose client disconnected is logged with (nginx's convention; no answer is sent). */
const CLIENT_CLOSED = 499;

const isAbort = (error: unknown) =>
  (error instanceof Error || error instanceof DOMException) && error.name === "AbortError";

const sqliteCode = (error: unknown) => {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === "string" ? code : "";
};
const isDiskFull = (error: unknown) => sqliteCode(error) === "SQLITE_FULL";
/** The data dir's filesystem refuses writes: read-only (remounted so after an I/O error), or failing. */
const isStorageFailure = (error: unknown) => /^SQLITE_(READONLY|IOERR)/.test(sqliteCode(error));

/**
 * Maps anything thrown to a status and body. Elysia wraps a throw inside a parse hook in its ParseError, so
 * the cause is unwrapped first; anything unknown is logged and answered without its message.
 */
export function mapError(
  code: unknown,
  error: unknown,
  logUnknown: (error: unknown) => void,
): [number, Record<string, unknown>] {
  const cause = code === "PARSE" && error instanceof Error ? error.cause : undefined;
  const appError = error instanceof AppError ? error : cause instanceof AppError ? cause : undefined;
  if (appError) return [STATUS_OF[appError.kind], { error: appError.message, ...appError.extra }];
  // The client went away while its body was being read (a cancelled upload; the JSON parser sees it as the
  // cause of its error): nothing failed here, and the answer reaches no one. Logged as 499, as proxies do.
  if (isAbort(error) || isAbort(cause)) return [CLIENT_CLOSED, { error: "client closed the request" }];
  // The data dir's disk is full: not a fault of this request, and nothing was stored. Reads still work.
  if (isDiskFull(error))
    return [507, { error: "the server's disk is full: nothing can be stored until space is freed" }];
  // Its filesystem went read-only or fails: nothing was stored; `/health` says which, the operator repairs it.
  if (isStorageFailure(error))
    return [503, { error: "the server cannot write to its disk: nothing can be stored until it is repaired" }];
  switch (code) {
    case "VALIDATION": {
      const issue = (error as { valueError?: { message?: string } }).valueError;
      return [400, { error: issue?.message ?? "invalid input" }];
    }
    case "PARSE":
      return [400, { error: "invalid json" }];
    case "NOT_FOUND":
      return [404, { error: "page not found" }];
    default:
      logUnknown(error);
      return [500, { error: "internal error" }];
  }
}
