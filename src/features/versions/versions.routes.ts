/** A text file's versions (contract §11), below the space's files. */
import { Elysia } from "elysia";
import { z } from "zod";
import type { AuthMacro } from "../../http/auth";
import { doc } from "../../http/docs";
import { noBodyIn } from "../../http/schemas";
import { presentNode } from "../files/files.present";
import { contentResponse } from "../files/files.routes";
import { nodeOut } from "../files/files.schemas";
import { assertMayRestore } from "./versions.policy";
import { presentVersion } from "./versions.present";
import { versionOut } from "./versions.schemas";
import type { VersionsService } from "./versions.service";

export function versionsRoutes(auth: AuthMacro, versions: VersionsService) {
  return new Elysia({ prefix: "/api/v1/organizations/:orgId/spaces/:spaceId/files/:nodeId/versions" })
    .use(auth)
    .get("", ({ actor, params }) => ({ versions: versions.list(actor, params.nodeId).map(presentVersion) }), {
      space: "files.read",
      detail: doc("A text file's kept versions, newest first (a binary file has none: an empty list)", () => ({
        200: z.object({ versions: z.array(versionOut()) }),
        400: "`a folder has no content`",
      })),
    })
    .get(
      "/:versionId/content",
      ({ actor, params, request, set }) =>
        contentResponse(versions.content(actor, params.nodeId, params.versionId), request, set),
      {
        space: "files.read",
        detail: doc(
          "A version's text, served as the file's content is (its Content-Type, an ETag of the version's checksum)",
          () => ({
            200: "The version's text",
            400: "`a folder has no content`",
            404: "`file not found`, `version not found`",
          }),
          {
            bytes: {
              statuses: [200, 206],
              headers: {
                ETag: 'The version\'s SHA-256 in quotes: `"<checksum_sha256>"`',
                "Content-Security-Policy": "`default-src 'none'; sandbox; frame-ancestors 'none'`",
              },
              requestHeaders: {
                Range: "One byte range, `bytes=<first>-<last>`: 206",
                "If-None-Match": "An ETag from an earlier answer: 304",
              },
            },
          },
        ),
      },
    )
    .post(
      "/:versionId/restore",
      async ({ actor, params }) => ({
        node: presentNode(await versions.restore(actor, params.nodeId, params.versionId)),
      }),
      {
        space: "files.write",
        check: assertMayRestore,
        body: noBodyIn,
        detail: doc(
          "Gives the file a version's text again, through the live document everyone edits (the text before is kept as a version first)",
          () => ({
            200: z.object({ node: nodeOut() }),
            403: "`only a person can restore a version`",
            404: "`file not found`, `version not found`",
            413: "Over TANDEM_MAX_UPLOAD_BYTES: `file too large`",
          }),
          { access: "A person (not a service account) holding `files.write`" },
        ),
      },
    );
}
