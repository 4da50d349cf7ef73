/** The profile screen's own call: changing one's display name. */
import type { User } from "../../../../src/api-types";
import { api } from "../../lib/api";

/** Renames the signed-in person (everyone sees it at once, through `member.updated`). */
export async function renameMe(displayName: string): Promise<User> {
  return (await api<{ user: User }>("PATCH", "/me", { display_name: displayName })).user;
}
