/** Small icons of the board screens. */
import type { Priority } from "../../../../src/api-types";

/** A line icon of the text's colour, 16 units square (an SVG: emoji fonts are not everywhere). */
function LineIcon({ path }: { path: string }) {
  return (
    <svg
      className="icon-svg"
      viewBox="0 0 16 16"
      aria-hidden="true"
      fill="none"
      stroke="currentColor"
      strokeWidth="1.5"
      strokeLinejoin="round"
    >
      <path d={path} />
    </svg>
  );
}

/** A paper clip. */
export function PaperClip() {
  return (
    <LineIcon path="M10.5 4.5 5.6 9.4a1.5 1.5 0 0 0 2.1 2.1l5.3-5.3a3 3 0 0 0-4.2-4.2L3.4 7.4a4.5 4.5 0 0 0 6.4 6.4l4.2-4.3" />
  );
}

/**
 * A task's priority as Linear draws it: three bars, as many filled as the priority is high, or a filled
 * square with "!" for urgent. Nothing for no priority.
 */
export function PriorityIcon({ priority }: { priority: Priority }) {
  if (priority === "none") return null;
  if (priority === "urgent")
    return (
      <svg className="icon-svg priority-icon urgent" viewBox="0 0 16 16" aria-hidden="true">
        <rect x="1" y="1" width="14" height="14" rx="3" fill="currentColor" />
        <path d="M8 4v5" stroke="var(--card)" strokeWidth="2" strokeLinecap="round" />
        <circle cx="8" cy="12" r="1.1" fill="var(--card)" />
      </svg>
    );
  const filled = priority === "high" ? 3 : priority === "medium" ? 2 : 1;
  return (
    <svg className="icon-svg priority-icon" viewBox="0 0 16 16" aria-hidden="true">
      {[0, 1, 2].map((i) => (
        <rect
          key={i}
          x={2 + i * 4.5}
          y={10 - i * 4}
          width="3"
          height={4 + i * 4}
          rx="1"
          fill="currentColor"
          opacity={i < filled ? 1 : 0.3}
        />
      ))}
    </svg>
  );
}

/** A speech bubble, beside a task's comment count. */
export function CommentIcon() {
  return <LineIcon path="M2.5 3.5h11v7.5h-6l-3.5 2.5V11H2.5z" />;
}
