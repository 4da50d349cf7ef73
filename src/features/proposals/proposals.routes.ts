/** File edit proposals (contract §6, §7), below the space's files. */
import { Elysia } from "elysia";
import { z } from "zod";
import type { AuthMacro } from "../../http/auth";
import { doc } from "../../http/docs";
import { noBodyIn } from "../../http/schemas";
import { assertMayResolve } from "./proposals.policy";
import { presentProposal } from "./proposals.present";
import { createProposalIn, proposalOut, spaceProposalsQuery } from "./proposals.schemas";
import type { ProposalsService } from "./proposals.service";

const one = z.object({ proposal: proposalOut() });

export function proposalsRoutes(auth: AuthMacro, proposals: ProposalsService) {
  return new Elysia({ prefix: "/api/v1/organizations/:orgId/spaces/:spaceId/files" })
    .use(auth)
    .get(
      "/proposals",
      ({ actor, query }) => ({ proposals: proposals.ofSpace(actor, query.status).map(presentProposal) }),
      {
        space: "files.read",
        query: spaceProposalsQuery,
        detail: doc("The proposals of the space's files with one status (`pending` by default), newest first", () => ({
          200: z.object({ proposals: z.array(proposalOut()) }),
        })),
      },
    )
    .get(
      "/:nodeId/proposals",
      ({ actor, params }) => ({ proposals: proposals.list(actor, params.nodeId).map(presentProposal) }),
      {
        space: "files.read",
        detail: doc("Every proposal of a text file, whatever its status, newest first", () => ({
          200: z.object({ proposals: z.array(proposalOut()) }),
          400: "`not a text file` (a binary file); `a folder has no content` (a folder)",
        })),
      },
    )
    .post(
      "/:nodeId/proposals",
      ({ actor, params, body, status }) =>
        status(201, { proposal: presentProposal(proposals.create(actor, params.nodeId, body)) }),
      {
        space: "files.read",
        body: createProposalIn,
        detail: doc("Proposes a new text for a text file; a person accepts or rejects it", () => ({
          201: one,
          413: "A body over 1 MiB: `request body too large`; over TANDEM_MAX_UPLOAD_BYTES: `file too large`",
        })),
      },
    )
    .post(
      "/proposals/:proposalId/accept",
      async ({ actor, params }) => ({ proposal: presentProposal(await proposals.accept(actor, params.proposalId)) }),
      {
        space: "files.write",
        check: assertMayResolve,
        body: noBodyIn,
        detail: doc(
          "A person accepts a pending proposal: the file takes its text, in the live document everyone edits",
          () => ({
            200: one,
            403: "`only a person can accept or reject a proposal`",
            409: "`file changed since the proposal`, `proposal is not pending`",
            413: "Over TANDEM_MAX_UPLOAD_BYTES: `file too large`",
          }),
          { access: "A person (not a service account) holding `files.write`" },
        ),
      },
    )
    .post(
      "/proposals/:proposalId/reject",
      ({ actor, params }) => ({ proposal: presentProposal(proposals.reject(actor, params.proposalId)) }),
      {
        space: "files.write",
        check: assertMayResolve,
        body: noBodyIn,
        detail: doc(
          "A person rejects a pending proposal",
          () => ({
            200: one,
            403: "`only a person can accept or reject a proposal`",
            409: "`proposal is not pending`",
          }),
          { access: "A person (not a service account) holding `files.write`" },
        ),
      },
    );
}
