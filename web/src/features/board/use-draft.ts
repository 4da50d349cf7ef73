/** A field's edit in progress, kept as state to render and as a ref for handlers made by an older render. */
import { type RefObject, useCallback, useRef, useState } from "react";
import type { Task } from "../../../../src/api-types";

/** An edit in progress: the value typed so far and the task as it was when the edit began. */
export interface Draft {
  value: string;
  base: Task;
}

/** The draft (null: not editing), the draft as of now, and a setter of both. */
export function useDraft<T>(): { value: T | null; latest: RefObject<T | null>; set: (draft: T | null) => void } {
  const [value, setValue] = useState<T | null>(null);
  // The draft as of now: a commit may run from a handler of an older render (a blur right after Escape threw the
  // edit away), which must see the cancelled draft, not the one its render held. Each render starts from the
  // state again, so a commit that sets it aside (`latest.current = null`) only does so until the next render.
  const latest = useRef<T | null>(null);
  latest.current = value;
  const set = useCallback((draft: T | null) => {
    latest.current = draft;
    setValue(draft);
  }, []);
  return { value, latest, set };
}
