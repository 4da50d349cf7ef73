/** Request and response schemas of file edit proposals (contract §6 and §7). */
import { z } from "zod";
import { lazy, timestampOut, uuidOut } from "../../http/schemas";

export const createProposalIn = z.object({
  proposed_content: z.string(),
  note: z.string().max(10_000).optional().meta({ default: "" }),
});

/** `GET .../files/proposals`: the space's proposals with one status (`pending` when omitted). */
export const spaceProposalsQuery = z.object({
  status: z.enum(["pending", "accepted", "rejected"]).optional(),
});

export const proposalOut = lazy(() =>
  z
    .object({
      id: uuidOut,
      space_id: uuidOut,
      node_id: uuidOut,
      author_user_id: uuidOut.nullable(),
      base_content_sha256: z.string(),
      proposed_content: z.string(),
      note: z.string(),
      status: z.enum(["pending", "accepted", "rejected"]),
      created_at: timestampOut,
      resolved_at: timestampOut.nullable(),
      resolved_by: uuidOut.nullable(),
    })
    .meta({ id: "Proposal" }),
);
export type ProposalOut = z.infer<ReturnType<typeof proposalOut>>;
