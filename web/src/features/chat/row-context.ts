/**
 * What every message row of the open room shares: the room's actions; which message is selected, edited and the
 * list's Tab stop, each a small store a row subscribes to for itself alone; and whether the screen has hover.
 */
import { createContext, useSyncExternalStore } from "react";
import type { Message } from "../../../../src/api-types";

/**
 * What every row needs that is the same for all of them. The functions are stable (they read the latest state
 * through refs), so the context never changes and never re-renders the rows by itself.
 */
export interface RowActions {
  me: string;
  canWrite: boolean;
  /** Whether the viewer may delete messages of others (moderation). */
  canModerate: boolean;
  nameOf: (userId: string) => string;
  toggleReaction: (messageId: string, emoji: string, mine: boolean) => void;
  openPicker: (messageId: string, anchor: HTMLElement) => void;
  /** Saves an edit; resolves to the API's error in words, or null. */
  edit: (message: Message, content: string) => Promise<string | null>;
  askDelete: (message: Message) => void;
  /** Puts the keyboard back in the composer (after an edit is saved or cancelled). */
  focusComposer: () => void;
  /** Opens the thread of a root (a room's rows); null where rows are a thread's own (the side panel). */
  openThread: ((rootId: string) => void) | null;
  /** The message tapped last, whose actions show on touch and narrow screens. */
  selection: Selection;
  /** The message being edited: held here, not in its row, so that a row drawn anew keeps its open editor. */
  editing: Editing;
  /**
   * The one message that is the list's Tab stop (the newest, until the keyboard moves): the list is a single
   * stop, arrows move between messages, and Tab goes on into the focused message's links and actions.
   */
  current: Selection;
  /** The message the room was opened at (`?message=`, from a search): highlighted until another is. */
  jumped: Selection;
}

/** Which one message is selected; each row subscribes to whether it is the one, not to the whole value. */
export interface Selection {
  get: () => string | null;
  set: (id: string | null) => void;
  subscribe: (listener: () => void) => () => void;
}

/** A selection with nothing selected. */
export function createSelection(): Selection {
  let current: string | null = null;
  const listeners = new Set<() => void>();
  return {
    get: () => current,
    set: (id) => {
      if (id === current) return;
      current = id;
      for (const listener of listeners) listener();
    },
    subscribe: (listener) => {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
}

/**
 * The one message whose editor is open (opening another closes it), with the text typed so far. A row can be
 * drawn anew while its editor is open (a fresh page of the room replaces the loaded one): it opens the editor
 * again with that text.
 */
export interface Editing extends Selection {
  /** The text typed in the open editor; null until something is typed. */
  draft: string | null;
}

/** No message being edited. */
export function createEditing(): Editing {
  const which = createSelection();
  const editing: Editing = {
    ...which,
    draft: null,
    set: (id) => {
      if (id !== which.get()) editing.draft = null;
      which.set(id);
    },
  };
  return editing;
}

/** Screens without hover (touch) or narrower than 760 px: a row's actions show only once it is selected. */
const NO_HOVER = "(hover: none), (max-width: 760px)";
let narrowQuery: MediaQueryList | null = null;

function subscribeNarrow(listener: () => void): () => void {
  narrowQuery ??= matchMedia(NO_HOVER);
  narrowQuery.addEventListener("change", listener);
  return () => narrowQuery?.removeEventListener("change", listener);
}

function isNarrow(): boolean {
  narrowQuery ??= matchMedia(NO_HOVER);
  return narrowQuery.matches;
}

/** Whether rows show their actions only when selected (touch screens, and below 760 px, zoom included). */
export function useNarrow(): boolean {
  return useSyncExternalStore(subscribeNarrow, isNarrow);
}

/** The row actions of the room being shown. */
export const RowContext = createContext<RowActions | null>(null);
