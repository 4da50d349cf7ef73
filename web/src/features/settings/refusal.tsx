/**
 * A settings tab opened without its permission says so once, in the page's notice. The tab's own loads are
 * then refused by the API with the same words; those are not shown (and announced) a second time.
 */
import { createContext, useContext } from "react";
import { ErrorText } from "../../lib/ui";

/** The permission the open tab needs and the viewer lacks (its notice is on screen), or null. */
export const MissingPermission = createContext<string | null>(null);

/** A tab's load error in words, unless it is the refusal the page's notice already gives. */
export function LoadError({ error }: { error: string | null | undefined }) {
  const missing = useContext(MissingPermission);
  if (missing && error === `missing permission: ${missing}`) return null;
  return <ErrorText error={error} />;
}
