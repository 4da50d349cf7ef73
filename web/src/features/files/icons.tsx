/** The files screen's icons: small inline SVGs in the text color (no icon font, nothing to download). */
import type { FileNode } from "../../../../src/api-types";

const PATHS = {
  folder:
    "M3 7.5A1.5 1.5 0 0 1 4.5 6h4.2l2 2h8.8A1.5 1.5 0 0 1 21 9.5v8a1.5 1.5 0 0 1-1.5 1.5h-15A1.5 1.5 0 0 1 3 17.5z",
  folderOpen:
    "M3 17.5v-10A1.5 1.5 0 0 1 4.5 6h4.2l2 2h7.8A1.5 1.5 0 0 1 20 9.5V11M3 17.5 5.6 12a1.5 1.5 0 0 1 1.4-1h13.4a1 1 0 0 1 .9 1.4l-2.5 5.7a1.5 1.5 0 0 1-1.4.9H4.5A1.5 1.5 0 0 1 3 17.5z",
  file: "M6.5 3h7l4.5 4.5V20a1 1 0 0 1-1 1h-10.5a1 1 0 0 1-1-1V4a1 1 0 0 1 1-1zM13.5 3v4.5H18",
  text: "M6.5 3h7l4.5 4.5V20a1 1 0 0 1-1 1h-10.5a1 1 0 0 1-1-1V4a1 1 0 0 1 1-1zM13.5 3v4.5H18M8.5 12h7M8.5 15h7M8.5 18h4.5",
  image:
    "M4.5 4h15a1 1 0 0 1 1 1v14a1 1 0 0 1-1 1h-15a1 1 0 0 1-1-1V5a1 1 0 0 1 1-1zM3.5 16.5l5-5 4 4 2.5-2.5 5.5 5.5M15 9.5a1.5 1.5 0 1 1-3 0 1.5 1.5 0 0 1 3 0z",
  root: "M12 3.5 20.5 8 12 12.5 3.5 8zM3.5 12 12 16.5 20.5 12M3.5 16 12 20.5 20.5 16",
} as const;

/** One icon by name, 16 px, hidden from assistive technology (the name beside it says what it is). */
export function Icon({ name, className }: { name: keyof typeof PATHS; className?: string }) {
  return (
    <svg
      className={`icon-svg ${className ?? ""}`}
      width="16"
      height="16"
      viewBox="0 0 24 24"
      fill="none"
      stroke="currentColor"
      strokeWidth="1.7"
      strokeLinecap="round"
      strokeLinejoin="round"
      aria-hidden="true"
      focusable="false"
    >
      <path d={PATHS[name]} />
    </svg>
  );
}

/** The icon of a node: an (open) folder, a text file, an image or another file. */
export function FileIcon({ node, open = false }: { node: FileNode; open?: boolean }) {
  if (node.kind === "folder") return <Icon name={open ? "folderOpen" : "folder"} className="icon-folder" />;
  if (node.editable) return <Icon name="text" className="icon-file" />;
  if (node.mime_type?.startsWith("image/")) return <Icon name="image" className="icon-file" />;
  return <Icon name="file" className="icon-file" />;
}
