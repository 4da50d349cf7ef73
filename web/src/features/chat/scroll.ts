/** Where a room's list is scrolled: measured on laid-out message blocks, and the rows to hold in place. */

/**
 * Runs `measure` (which reads where `element` is and scrolls to it) with the message block holding `element`
 * fully laid out. A block never drawn yet (just put in front, say) is skipped by `content-visibility` at its
 * estimated height, while its rows are placed at their real heights: a row measured there is where it will
 * be, but the block grows to its real height when first drawn, and the browser's own scroll anchoring then
 * moves the view by the difference (a tall message above the "New messages" divider pushed it out of view).
 * Laid out now, the block keeps the height it was measured with.
 */
export function laidOut(element: HTMLElement, measure: () => void): void {
  const block = element.closest<HTMLElement>(".message-block");
  if (block) block.style.contentVisibility = "visible";
  try {
    measure();
  } finally {
    if (block) block.style.contentVisibility = "";
  }
}

/**
 * An anchor holding the row `to` where row `from` is now, when `from` is in view (else null): the "New
 * messages" divider moving from one to the other stays in place on screen.
 */
export function rowInView(el: HTMLElement | null, from: string, to: string): { id: string; offset: number } | null {
  const row = el?.querySelector<HTMLElement>(`article[data-id="${from}"]`);
  if (!el || !row) return null;
  const offset = row.getBoundingClientRect().top - el.getBoundingClientRect().top;
  return offset >= -row.offsetHeight && offset < el.clientHeight ? { id: to, offset } : null;
}

/** The first message row at least partly in view, and how far its top is from the list's top. */
export function firstVisibleRow(el: HTMLElement | null): { id: string; offset: number } | null {
  if (!el) return null;
  const top = el.getBoundingClientRect().top;
  // Blocks first: rows of blocks above the view are never measured (they may not be laid out).
  for (const block of el.querySelectorAll<HTMLElement>(".message-block")) {
    if (block.getBoundingClientRect().bottom <= top) continue;
    for (const row of block.querySelectorAll<HTMLElement>("article.message")) {
      const box = row.getBoundingClientRect();
      if (box.bottom > top) return { id: row.dataset.id as string, offset: box.top - top };
    }
  }
  return null;
}
