/**
 * The palette's searches as the words are typed: 150 ms after the last keystroke, two requests at once (tasks
 * and files, whose names are places to jump to; messages and comments), the previous ones cancelled.
 */
import { useEffect, useState } from "react";
import type { SearchResult } from "../../../../src/api-types";
import { messageOf } from "../../lib/api";
import { search } from "./api";

/** Wait this long after a keystroke before searching. */
const DEBOUNCE_MS = 150;
/** How many of each pair of kinds the palette shows. */
const EACH = 8;

/** What the palette's searches found for the words `q` (null while none have answered for them). */
export interface PaletteFound {
  /** The words these results are for. */
  q: string;
  tasksAndFiles: SearchResult[];
  messages: SearchResult[];
}

/** Searches for `q` as it settles; `busy` while an answer for the current words is awaited. */
export function usePaletteSearch(
  base: string,
  q: string,
): { found: PaletteFound | null; busy: boolean; error: string | null } {
  const [found, setFound] = useState<PaletteFound | null>(null);
  const [error, setError] = useState<string | null>(null);
  const words = q.trim();
  useEffect(() => {
    setError(null);
    if (!words) {
      setFound(null);
      return;
    }
    const controller = new AbortController();
    const timer = setTimeout(() => {
      const { signal } = controller;
      Promise.all([
        search(base, { q: words, types: ["task", "file"], limit: EACH }, signal),
        search(base, { q: words, types: ["message", "task_message"], limit: EACH }, signal),
      ])
        .then(([tasksAndFiles, messages]) => setFound({ q: words, tasksAndFiles, messages }))
        .catch((err) => {
          if (!signal.aborted) setError(messageOf(err));
        });
    }, DEBOUNCE_MS);
    return () => {
      clearTimeout(timer);
      controller.abort();
    };
  }, [base, words]);
  return { found, busy: !!words && found?.q !== words && !error, error };
}
