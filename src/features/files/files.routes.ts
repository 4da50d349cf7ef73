/** The file tree of a space and file content (api-spec §4 Files, contract §5). */
import { Elysia } from "elysia";
import { z } from "zod";
import type { AuthMacro } from "../../http/auth";
import { doc } from "../../http/docs";
import type { EventBus } from "../events/events.bus";
import { SpaceJsonCache, sendJson } from "../events/space-cache";
import { isActiveContent } from "./files.policy";
import { presentNode } from "./files.present";
import { createFolderIn, createTextIn, listFilesQuery, nodeOut, patchNodeIn } from "./files.schemas";
import type { Content, FilesService } from "./files.service";

const nodeAnswer = z.object({ node: nodeOut });
const nodesAnswer = z.object({ nodes: z.array(nodeOut) });

/**
 * The bytes of a file, sandboxed: uploaded content must never run as a page of this origin. Bytes in memory go
 * out as a Blob (Elysia sets its length and serves Range requests); a large blob streams as a Response holding
 * every header itself, with `set.headers` emptied, since Elysia would otherwise rebuild it and drop its length.
 */
function contentResponse(
  { node, mimeType, body }: Content,
  set: { headers: Record<string, string | number> },
): Blob | Response {
  const textual = /^text\/|json|xml|yaml|javascript/.test(mimeType) && !/charset=/i.test(mimeType);
  const type = textual ? `${mimeType}; charset=utf-8` : mimeType;
  set.headers["content-disposition"] =
    `${isActiveContent(mimeType) ? "attachment" : "inline"}; filename*=UTF-8''${encodeURIComponent(node.name)}`;
  set.headers["content-security-policy"] = "default-src 'none'; sandbox; frame-ancestors 'none'";
  set.headers.etag = `"${node.checksumSha256 ?? ""}"`;
  if (body instanceof Uint8Array) return new Blob([body as Uint8Array<ArrayBuffer>], { type });
  const headers = new Headers({ "content-type": type, "content-length": String(node.sizeBytes ?? 0) });
  for (const [key, value] of Object.entries(set.headers)) {
    headers.set(key, String(value));
    delete set.headers[key];
  }
  return new Response(body, { headers });
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
        { 200: nodesAnswer },
      ),
    })
    .get(
      "/tree",
      ({ actor, set }) =>
        sendJson(
          set,
          trees.json(actor.space.id, "tree", () => ({ nodes: files.tree(actor).map(presentNode) })),
        ),
      {
        space: "files.read",
        detail: doc("Every live node of the space, flat", { 200: nodesAnswer }),
      },
    )
    .post(
      "/folders",
      ({ actor, body, status }) => status(201, { node: presentNode(files.createFolder(actor, body)) }),
      {
        space: "files.write",
        body: createFolderIn,
        detail: doc("Creates a folder (`parent_id` null or omitted: the root)", { 201: nodeAnswer }),
      },
    )
    .post("/text", ({ actor, body, status }) => status(201, { node: presentNode(files.createText(actor, body)) }), {
      space: "files.write",
      body: createTextIn,
      detail: doc("Creates a text file, editable together", { 201: nodeAnswer }),
    })
    .post(
      "/upload",
      async ({ actor, request, status }) => status(201, { node: presentNode(await files.upload(actor, request)) }),
      {
        space: "files.write",
        detail: doc("Uploads a file: multipart/form-data with `file` and optional `parent_id`, streamed", {
          201: nodeAnswer,
        }),
      },
    )
    .get("/:nodeId", ({ actor, params }) => ({ node: presentNode(files.node(actor, params.nodeId)) }), {
      space: "files.read",
      detail: doc("One live node", { 200: nodeAnswer }),
    })
    .get("/:nodeId/content", ({ actor, params, set }) => contentResponse(files.content(actor, params.nodeId), set), {
      space: "files.read",
      detail: doc("The file's bytes with their Content-Type", { 200: null }),
    })
    .put(
      "/:nodeId/content",
      async ({ actor, params, request }) => ({
        node: presentNode(await files.putContent(actor, params.nodeId, request)),
      }),
      {
        space: "files.write",
        detail: doc("Replaces the file's content with the raw request body", { 200: nodeAnswer }),
      },
    )
    .patch("/:nodeId", ({ actor, params, body }) => ({ node: presentNode(files.patch(actor, params.nodeId, body)) }), {
      space: "files.write",
      body: patchNodeIn,
      detail: doc("Renames and/or moves a node (`parent_id` null: to the root)", { 200: nodeAnswer }),
    })
    .delete(
      "/:nodeId",
      ({ actor, params, status }) => {
        files.delete(actor, params.nodeId);
        return status(204);
      },
      {
        space: "files.write",
        detail: doc("Soft-deletes the node and everything below it", { 204: null }),
      },
    );
}
