/** Data hooks over the features' clients. */
import { type Dispatch, type SetStateAction, useCallback, useEffect, useRef, useState } from "react";
import { messageOf } from "./api";
import { loadFresh } from "./events";

/** The state of one GET: its data (kept while reloading), its error in words, and a reload. */
export interface Loaded<T> {
  data: T | undefined;
  error: string | null;
  loading: boolean;
  reload: () => Promise<void>;
  /** Local edits (an optimistic change, a live event) without refetching. */
  setData: Dispatch<SetStateAction<T | undefined>>;
}

/**
 * Runs `load(...args)`, a read of a feature's client, now and whenever `args` change (compared by value); a null
 * `load` waits. Only the latest request's answer is used, and it is not older than the live events applied
 * meanwhile (`loadFresh`). `load` itself is read when it runs, so an inline function does not load again.
 */
export function useLoad<A extends unknown[], T>(load: ((...args: A) => Promise<T>) | null, ...args: A): Loaded<T> {
  const key = load ? JSON.stringify(args) : null;
  const [data, setData] = useState<T | undefined>(undefined);
  const [error, setError] = useState<string | null>(null);
  const [loading, setLoading] = useState(key !== null);
  const current = useRef(key);
  current.current = key;
  const loader = useRef({ load, args });
  loader.current = { load, args };
  const latest = useRef(0);

  const reload = useCallback(async () => {
    const { load, args } = loader.current;
    if (key === null || !load) return;
    const request = ++latest.current;
    const mine = () => current.current === key && latest.current === request;
    setLoading(true);
    try {
      const value = await loadFresh(() => load(...args));
      if (mine()) {
        setData(value);
        setError(null);
      }
    } catch (err) {
      if (mine()) setError(messageOf(err));
    } finally {
      if (mine()) setLoading(false);
    }
  }, [key]);

  useEffect(() => {
    setData(undefined);
    setError(null);
    void reload();
  }, [reload]);

  return { data, error, loading, reload, setData };
}

/**
 * Wraps an action (a click, a submit) so it is not run twice at once and its error is kept in words for the
 * UI to show. `run` resolves to false when the action failed.
 */
export function useAction<A extends unknown[]>(
  action: (...args: A) => Promise<unknown>,
): { run: (...args: A) => Promise<boolean>; busy: boolean; error: string | null; clear: () => void } {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const ref = useRef(action);
  ref.current = action;
  const run = useCallback(async (...args: A) => {
    setBusy(true);
    setError(null);
    try {
      await ref.current(...args);
      return true;
    } catch (err) {
      setError(messageOf(err));
      return false;
    } finally {
      setBusy(false);
    }
  }, []);
  return { run, busy, error, clear: () => setError(null) };
}

/** A value stored in localStorage under `key` (per browser), as JSON. */
export function useStored<T>(key: string, initial: T): [T, (value: T) => void] {
  const [value, setValue] = useState<T>(() => {
    try {
      const raw = localStorage.getItem(key);
      return raw === null ? initial : (JSON.parse(raw) as T);
    } catch {
      return initial;
    }
  });
  const store = useCallback(
    (next: T) => {
      setValue(next);
      localStorage.setItem(key, JSON.stringify(next));
    },
    [key],
  );
  return [value, store];
}
