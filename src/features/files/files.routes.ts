/** The file tree of a space and file content (api-spec §4 Files, contract §5). */
import { Elysia } from "elysia";
import { z } from "zod";
import type { EventBus } from "../../core/events";
import type { AuthMacro } from "../../http/auth";
import { JSON_TYPE, requestIdOf } from "../../http/base";
import { doc } from "../../http/docs";
import { multipartFile } from "../../http/multipart";
import { SpaceJsonCache, sendJson } from "../events/space-cache";
import { assertMayChangeExisting, isActiveContent } from "./files.policy";
import { presentNode } from "./files.present";
import { createFolderIn, createTextIn, listFilesQuery, nodeOut, patchNodeIn } from "./files.schemas";
import type { Content, FilesService } from "./files.service";

const nodeAnswer = z.object({ node: nodeOut() });
const nodesAnswer = z.object({ nodes: z.array(nodeOut()) });

/** True when an `If-None-Match` list names `etag` (or is `*`); weak tags compare like strong ones. */
function matchesTag(header: string | null, etag: string): boolean {
  if (header === null) return false;
  return header.split(",").some((tag) => {
    const t = tag.trim();
    return t === "*" || t.replace(/^W\//, "") === etag;
  });
}

/**
 * The one range of a `Range: bytes=…` header, as first and last byte, or "unsatisfiable". Null (the whole
 * file) for no header, several ranges, or one that does not parse: a server may ignore those (RFC 9110).
 */
function rangeOf(header: string | null, size: number): { first: number; last: number } | "unsatisfiable" | null {
  const match = header === null ? null : /^bytes=(\d*)-(\d*)$/.exec(header.trim());
  if (!match || (match[1] === "" && match[2] === "")) return null;
  if (match[1] === "") {
    const suffix = Number(match[2]);
    return suffix === 0 || size === 0 ? "unsatisfiable" : { first: Math.max(0, size - suffix), last: size - 1 };
  }
  const first = Number(match[1]);
  const last = match[2] === "" ? size - 1 : Math.min(Number(match[2]), size - 1);
  if (match[2] !== "" && Number(match[2]) < first) return null;
  return first >= size ? "unsatisfiable" : { first, last };
}

/** A name as an RFC 8187 ext-value: percent-encoded UTF-8, `'`, `(`, `)` and `*` included. */
function extValue(name: string): string {
  return encodeURIComponent(name).replace(/['()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
}

/**
 * The bytes of a file, sandboxed: uploaded content must never run as a page of this origin. The answer is a
 * Response holding every header itself, with `set.headers` (the security headers) moved into it, since
 * Elysia would otherwise rebuild it. `If-None-Match` with the file's checksum answers 304. A file held in
 * memory (up to 8 MiB) also answers one byte `Range` (206; 416 with an error body past its end); a larger
 * one streams whole.
 */
export function contentResponse(
  { node, mimeType, body }: Content,
  request: Request,
  set: { headers: Record<string, string | number>; status?: number | string },
): Response {
  const headers = new Headers();
  for (const [key, value] of Object.entries(set.headers)) {
    headers.set(key, String(value));
    delete set.headers[key];
  }
  const answer = (status: number, content: BodyInit | null) => {
    set.status = status; // for the access log
    return new Response(content, { status, headers });
  };
  const etag = `"${node.checksumSha256 ?? ""}"`;
  const size = body instanceof Uint8Array ? body.byteLength : (node.sizeBytes ?? 0);
  const range = body instanceof Uint8Array ? rangeOf(request.headers.get("range"), size) : null;
  const ifRange = request.headers.get("if-range");
  if (range === "unsatisfiable" && (ifRange === null || ifRange === etag)) {
    // An error answer like any other (JSON, with the request id), plus the size the range missed.
    headers.set("content-type", JSON_TYPE);
    headers.set("x-request-id", requestIdOf(set));
    headers.set("content-range", `bytes */${size}`);
    return answer(416, JSON.stringify({ error: "range not satisfiable" }));
  }
  // Text files are UTF-8 by construction; a blob holds whatever bytes were uploaded, so its type stays as is.
  headers.set(
    "content-type",
    node.storage === "text" && !/charset=/i.test(mimeType) ? `${mimeType}; charset=utf-8` : mimeType,
  );
  headers.set(
    "content-disposition",
    `${isActiveContent(mimeType) ? "attachment" : "inline"}; filename*=UTF-8''${extValue(node.name)}`,
  );
  headers.set("content-security-policy", "default-src 'none'; sandbox; frame-ancestors 'none'");
  headers.set("etag", etag);
  if (matchesTag(request.headers.get("if-none-match"), etag)) return answer(304, null);
  if (!(body instanceof Uint8Array)) {
    headers.set("content-length", String(size));
    return answer(200, body);
  }
  headers.set("accept-ranges", "bytes");
  if (range && range !== "unsatisfiable" && (ifRange === null || ifRange === etag)) {
    headers.set("content-range", `bytes ${range.first}-${range.last}/${size}`);
    return answer(206, body.subarray(range.first, range.last + 1) as Uint8Array<ArrayBuffer>);
  }
  return answer(200, body as Uint8Array<ArrayBuffer>);
}

export function filesRoutes(auth: AuthMacro, files: FilesService, events: EventBus) {
  // A space's whole tree is kept serialized until a file of the space changes.
  const trees = new SpaceJsonCache(events, "file.");
  return new Elysia({ prefix: "/api/v1/organizations/:orgId/spaces/:spaceId/files" })
    .use(auth)
    .get("", ({ actor, query }) => ({ nodes: files.list(actor, query).map(presentNode) }), {
      space: "files.read",
      query: listFilesQuery,
      detail: doc(
        "Live children of a folder (`parentId`, default the root), or a name search (`q`, with `scope=space` across the space); folders first, then by name",
        () => ({ 200: nodesAnswer }),
      ),
    })
    .get(
      "/tree",
      ({ actor, set }) => {
        // A text being typed in gets its size and checksum written first, and the cached tree dropped with it.
        files.fresh(actor);
        return sendJson(
          set,
          trees.json(actor.space.id, "tree", () => ({ nodes: files.tree(actor).map(presentNode) })),
        );
      },
      {
        space: "files.read",
        detail: doc("Every live node of the space, flat", () => ({ 200: nodesAnswer })),
      },
    )
    .post(
      "/folders",
      ({ actor, body, status }) => status(201, { node: presentNode(files.createFolder(actor, body)) }),
      {
        space: "files.write",
        body: createFolderIn,
        detail: doc("Creates a folder (`parent_id` null or omitted: the root)", () => ({
          201: nodeAnswer,
          409: "`name already exists`",
        })),
      },
    )
    .post("/text", ({ actor, body, status }) => status(201, { node: presentNode(files.createText(actor, body)) }), {
      space: "files.write",
      body: createTextIn,
      detail: doc(
        "Creates a text file, editable together (up to the 1 MiB of a JSON body; larger ones by upload)",
        () => ({
          201: nodeAnswer,
          409: "`name already exists`",
          413: "A body over 1 MiB: `request body too large`; over TANDEM_MAX_UPLOAD_BYTES: `file too large`",
        }),
      ),
    })
    .post(
      "/upload",
      async ({ actor, request, status }) =>
        status(201, { node: presentNode(await files.upload(actor, multipartFile(request))) }),
      {
        space: "files.write",
        detail: doc(
          "Uploads a file: multipart/form-data with `file` and optional `parent_id`, streamed",
          () => ({
            201: nodeAnswer,
            409: "`name already exists`",
            413: "Over TANDEM_MAX_UPLOAD_BYTES: `file too large` (a text over 5 MiB is stored as a plain file)",
          }),
          {
            body: {
              "multipart/form-data": {
                type: "object",
                properties: {
                  file: { type: "string", format: "binary" },
                  parent_id: { type: "string", format: "uuid" },
                },
                required: ["file"],
              },
            },
          },
        ),
      },
    )
    .get("/:nodeId", ({ actor, params }) => ({ node: presentNode(files.read(actor, params.nodeId)) }), {
      space: "files.read",
      detail: doc("One live node", () => ({ 200: nodeAnswer })),
    })
    .get(
      "/:nodeId/content",
      ({ actor, params, request, set }) => contentResponse(files.content(actor, params.nodeId), request, set),
      {
        space: "files.read",
        detail: doc(
          "The file's bytes with their Content-Type; one byte `Range` (206) and `If-None-Match` (304)",
          () => ({
            200: "The file's bytes, with its Content-Type and an ETag of its checksum",
            400: "`a folder has no content`",
            206: "The requested byte range",
            304: "Not modified: the ETag given in If-None-Match is current",
            416: "The byte range lies outside the file",
          }),
          {
            bytes: {
              statuses: [200, 206],
              headers: {
                ETag: 'The content\'s SHA-256 in quotes: `"<checksum_sha256>"`',
                "Content-Disposition":
                  "`attachment` for content a browser would run (HTML, SVG, XML, scripts), else `inline`; with the file's name as `filename*=UTF-8''…`",
                "Content-Security-Policy": "`default-src 'none'; sandbox; frame-ancestors 'none'`",
                "Content-Range": "206 only: `bytes <first>-<last>/<size>`",
                "Accept-Ranges": "`bytes` (files over 8 MiB stream whole, without ranges)",
              },
              requestHeaders: {
                Range: "One byte range, `bytes=<first>-<last>` (either end may be left out): 206",
                "If-Range": "An ETag: the Range applies only while it is current, else the whole file (200)",
                "If-None-Match": "An ETag from an earlier answer: 304 while it is current",
              },
            },
          },
        ),
      },
    )
    .put(
      "/:nodeId/content",
      async ({ actor, params, request }) => ({
        node: presentNode(
          await files.putContent(actor, params.nodeId, request.body, request.headers.get("content-type")),
        ),
      }),
      {
        space: "files.write",
        detail: doc(
          "Replaces the file's content with the raw request body",
          () => ({
            200: nodeAnswer,
            403: "`service accounts cannot change existing files: propose a patch instead`",
            413: "Over the limit: `file too large`, or `text file too large` (5 MiB) for a text file",
          }),
          {
            body: { "*/*": { type: "string", format: "binary" } },
            access: "A person (not a service account) holding `files.write`: staff propose changes instead",
          },
        ),
      },
    )
    .patch("/:nodeId", ({ actor, params, body }) => ({ node: presentNode(files.patch(actor, params.nodeId, body)) }), {
      space: "files.write",
      check: assertMayChangeExisting,
      body: patchNodeIn,
      detail: doc(
        "Renames and/or moves a node (`parent_id` null: to the root)",
        () => ({
          200: nodeAnswer,
          400: "`cannot move a folder into itself`",
          403: "`service accounts cannot change existing files: propose a patch instead`",
          409: "`name already exists`",
        }),
        { access: "A person (not a service account) holding `files.write`: staff propose changes instead" },
      ),
    })
    .delete(
      "/:nodeId",
      ({ actor, params, status }) => {
        files.delete(actor, params.nodeId);
        return status(204);
      },
      {
        space: "files.write",
        detail: doc(
          "Soft-deletes the node and everything below it",
          () => ({
            204: null,
            403: "`service accounts cannot change existing files: propose a patch instead`",
          }),
          { access: "A person (not a service account) holding `files.write`: staff propose changes instead" },
        ),
      },
    );
}
