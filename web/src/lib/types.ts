/** Shapes of the API's answers that more than one screen uses (see docs/api.md). */

export interface User {
  id: string;
  email: string;
  display_name: string;
  created_at: string;
  service_account_id: string | null;
}

export interface Organization {
  id: string;
  name: string;
  slug: string;
  open_signups_enabled: boolean;
  created_at: string;
}

export interface Member {
  user_id: string;
  email: string;
  display_name: string;
  is_service_account: boolean;
  /** The staff member's service-account id (what `created_by_service_account_id` points to); null for a person. */
  service_account_id: string | null;
  role_ids: string[];
  joined_at: string;
}

export interface Space {
  id: string;
  organization_id: string;
  name: string;
  description: string;
  private: boolean;
  created_by: string;
  created_at: string;
}

export interface Task {
  id: string;
  space_id: string;
  board_id: string;
  column_id: string;
  title: string;
  description: string;
  assignee_user_id: string | null;
  due_at: string | null;
  deliverable_required: boolean;
  deliverable_instructions: string;
  position: number;
  version: number;
  created_by: string;
  created_at: string;
  updated_at: string;
}

export interface Column {
  id: string;
  board_id: string;
  name: string;
  position: number;
}

export interface FileNode {
  id: string;
  space_id: string;
  parent_id: string | null;
  kind: "folder" | "file";
  name: string;
  mime_type: string | null;
  size_bytes: number | null;
  checksum_sha256: string | null;
  editable: boolean;
  created_by: string;
  created_at: string;
  updated_at: string;
  deleted_at: string | null;
}
