/** Search (contract §10): one route over everything a member can see. */
import { Elysia } from "elysia";
import { pageOf } from "../../core/paging";
import type { AuthMacro } from "../../http/auth";
import { doc } from "../../http/docs";
import { presentResult } from "./search.present";
import { searchOut, searchQuery } from "./search.schemas";
import type { SearchService } from "./search.service";

export function searchRoutes(auth: AuthMacro, search: SearchService) {
  return new Elysia({ prefix: "/api/v1/organizations/:orgId" }).use(auth).get(
    "/search",
    ({ actor, query }) => {
      const { limit, before } = pageOf(query);
      const found = search.search(actor, { q: query.q, types: query.types, spaceId: query.space_id, limit, before });
      return { results: found.map(presentResult) };
    },
    {
      permission: "member",
      query: searchQuery,
      detail: doc(
        "Messages, tasks, task messages and files holding every word of `q`, best first, from the spaces the caller can see (files need `files.read`)",
        () => ({
          200: searchOut(),
          400: "`q: must not be empty`, `q: must be at most 200 characters`, `types: ...`, `invalid limit`, `invalid before`",
          404: "`space not found`: `space_id` names no space the caller can see",
        }),
      ),
    },
  );
}
