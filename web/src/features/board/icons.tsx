/** Small icons of the board screens. */

/** A paper clip (an SVG: emoji fonts are not everywhere). */
export function PaperClip() {
  return (
    <svg
      className="icon-svg"
      viewBox="0 0 16 16"
      aria-hidden="true"
      fill="none"
      stroke="currentColor"
      strokeWidth="1.5"
    >
      <path d="M10.5 4.5 5.6 9.4a1.5 1.5 0 0 0 2.1 2.1l5.3-5.3a3 3 0 0 0-4.2-4.2L3.4 7.4a4.5 4.5 0 0 0 6.4 6.4l4.2-4.3" />
    </svg>
  );
}
