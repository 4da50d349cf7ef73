/**
 * Every query a request path issues reads through an index: no `SCAN <table>` (a full scan of a real table), no
 * automatic (transient) index. The SQL is not written out by hand: the real stores run against a migrated,
 * filled and ANALYZEd database through a drizzle connection whose logger captures each statement with its
 * parameters, so the plan checked is the plan of exactly the SQL the store issues. Statements that write run
 * inside a savepoint that is rolled back.
 *
 * `USE TEMP B-TREE` (a sort the index order does not give) is allowed only where a case says why; the reasons
 * are listed with the cases below. A failing case prints its SQL and the whole plan; `PRINT_PLANS=1` prints
 * every plan.
 */
import type { Database } from "bun:sqlite";
import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { drizzle } from "drizzle-orm/bun-sqlite";
import { AccessMemo } from "../../src/core/access-memo";
import { openDatabase } from "../../src/db/client";
import { migrate } from "../../src/db/migrate";
import * as schema from "../../src/db/schema";
import { ActivityStore } from "../../src/features/activity/activity.store";
import { AuditStore, DELETE_OLD_SQL, NEWEST_SQL } from "../../src/features/audit/audit.store";
import { AuthStore } from "../../src/features/auth/auth.store";
import {
  AutomationsStore,
  DELIVERY_RUN_SQL,
  TAKE_DELIVERY_SQL,
  WEBHOOK_STATE_SQL,
} from "../../src/features/automations/automations.store";
import { ChatStore, PURGE_MESSAGES_SQL } from "../../src/features/chat/chat.store";
import { ANCESTRY_SQL, FilesStore, SUBTREE_DELETE_SQL } from "../../src/features/files/files.store";
import {
  AWAITING_EMAIL_SQL,
  FORGET_READ_STATES_SQL,
  INBOX_POINT_SQL,
  ITEMS_SQL,
  MARK_EMAILED_SQL,
  POSTS_SQL,
  READ_ROOM_ITEMS_SQL,
  READ_THREAD_ITEMS_SQL,
  STORED_POSTS_SQL,
  THREAD_AUTHORS_SQL,
  UNREAD_ITEMS_SQL,
  UNREAD_ROOMS_SQL,
} from "../../src/features/inbox/inbox.store";
import { IntegrationsStore } from "../../src/features/integrations/integrations.store";
import { InvitesStore } from "../../src/features/invites/invites.store";
import { LabelsStore } from "../../src/features/labels/labels.store";
import { MembersStore } from "../../src/features/members/members.store";
import { PUSH_SQL } from "../../src/features/notifications/notifications.store";
import { OrganizationStore } from "../../src/features/organization/organization.store";
import { ProposalsStore } from "../../src/features/proposals/proposals.store";
import {
  COUNT_SQL,
  LATEST_MESSAGES_SQL,
  LATEST_TASK_MESSAGES_SQL,
  LIVE_SQL,
  MESSAGES_INDEX_SQL,
  MESSAGES_WATERMARK_SQL,
  NAME_PARTS_SQL,
  NEWEST_DOC_SQL,
  PATH_SQL,
  RANK_SQL,
  ROOM_SPAN_DELETE_SQL,
  SNIPPET_SQL,
  STALE_TEXTS_SQL,
  SUBTREE_DOCS_DELETE_SQL,
  TASK_MESSAGES_INDEX_SQL,
  WORDS_SQL,
} from "../../src/features/search/search.store";
import { SignupsStore } from "../../src/features/signups/signups.store";
import { SpacesStore } from "../../src/features/spaces/spaces.store";
import { StaffStore } from "../../src/features/staff/staff.store";
import { COUNT_COMMENT_SQL, TasksStore } from "../../src/features/tasks/tasks.store";
import {
  NODES_WITH_VERSIONS_BETWEEN_SQL,
  SUBTREE_VERSIONS_DELETE_SQL,
  VersionsStore,
} from "../../src/features/versions/versions.store";
import { CLAIM_SQL, DUE_SQL, LAPSED_SQL, LIVE_WITH_SQL, RECLAIM_SQL } from "../../src/jobs/jobs.store";
import { nameKey } from "../../src/lib/text";
import { tempDir } from "../helpers/server";

/** One statement as drizzle sent it to SQLite. */
interface Captured {
  sql: string;
  params: unknown[];
}

/** One store call on a request path, with why a temp B-tree is acceptable for it (when it needs one). */
interface Case {
  name: string;
  /** Runs the store method; its drizzle statements are captured and planned. */
  run?: () => unknown;
  /** A statement the store runs on the raw connection (recursive CTEs), planned as written. */
  raw?: { sql: string; params: Record<string, unknown> };
  /** Runs inside a savepoint that is rolled back. */
  writes?: boolean;
  /** Why sorting in a temp B-tree is acceptable here; without it a temp B-tree fails the case. */
  tempBTree?: string;
  /** Tables this case may scan in full, each with why; any other scan fails the case. */
  scan?: Record<string, string>;
}

/** Names in plans that are not tables: the recursive CTEs of the file tree queries. */
const CTE_NAMES = new Set(["up", "sub"]);

let sqlite: Database;
let captured: Captured[] = [];
let stores: {
  spaces: SpacesStore;
  tasks: TasksStore;
  chat: ChatStore;
  files: FilesStore;
  members: MembersStore;
  organization: OrganizationStore;
  invites: InvitesStore;
  signups: SignupsStore;
  auth: AuthStore;
  staff: StaffStore;
  activity: ActivityStore;
  audit: AuditStore;
  automations: AutomationsStore;
  proposals: ProposalsStore;
  integrations: IntegrationsStore;
  labels: LabelsStore;
  versions: VersionsStore;
};

/** Realistic ids picked from the seeded rows. */
const ids = {
  org: "",
  user: "",
  outsider: "",
  staffUser: "",
  staffAccount: "",
  staffTokenHash: "",
  refreshHash: "",
  refreshFamily: "",
  space: "",
  privateSpace: "",
  board: "",
  column: "",
  otherColumn: "",
  task: "",
  label: "",
  room: "",
  threadRoot: "",
  message: "",
  pageMessageIds: [] as string[],
  folder: "",
  deepFolder: "",
  file: "",
  blob: "",
  role: "",
  roleIds: [] as string[],
  invite: "",
  inviteHash: "",
  signup: "",
};

const now = Date.UTC(2026, 10, 21, 9, 30);
let seq = 0;
const id = () => Bun.randomUUIDv7();
const pick = <T>(list: readonly T[], i: number): T => list[i % list.length] as T;

/** Fills the database with a few tens of thousands of rows, shaped like a busy install. */
function seed(db: Database): void {
  const keyed = new Set(["roles", "service_accounts", "file_nodes", "chat_rooms"]);
  const ins = (table: string, given: Record<string, unknown>) => {
    // Names are compared by their folded key, as the stores write it.
    const row =
      keyed.has(table) && typeof given.name === "string" ? { ...given, name_key: nameKey(given.name) } : given;
    const cols = Object.keys(row);
    db.prepare(`INSERT INTO ${table} (${cols.join(", ")}) VALUES (${cols.map(() => "?").join(", ")})`).run(
      ...(Object.values(row) as never[]),
    );
  };
  const t = () => now + seq++;
  db.transaction(() => {
    const org = id();
    ids.org = org;
    ins("organizations", {
      id: org,
      name: "Acme",
      slug: "acme",
      open_signups_enabled: 1,
      created_at: t(),
      updated_at: t(),
    });

    const roleIds: string[] = [];
    for (const [name, key] of [
      ["Owner", "owner"],
      ["Member", "member"],
      ["Viewer", "viewer"],
      ["AI Staff", "ai_staff"],
      ...Array.from({ length: 30 }, (_, i) => [`Custom ${i}`, null] as const),
    ] as const) {
      const r = id();
      roleIds.push(r);
      ins("roles", {
        id: r,
        org_id: org,
        name,
        system_key: key,
        permissions: JSON.stringify(["tasks.write", "chat.write", "files.read", "files.write"]),
        created_at: t(),
        updated_at: t(),
      });
    }
    ids.role = roleIds[1] as string;
    ids.roleIds = roleIds.slice(0, 3);

    const users: string[] = [];
    for (let i = 0; i < 400; i++) {
      const u = id();
      users.push(u);
      ins("users", {
        id: u,
        email: `user${i}@acme.test`,
        display_name: `User ${i}`,
        password_hash: "$argon2id$x",
        created_at: t(),
        updated_at: t(),
      });
      // Every fifth user is still an applicant (open signups), the rest are members.
      if (i % 5 === 4) {
        const s = id();
        ins("signup_requests", {
          id: s,
          org_id: org,
          user_id: u,
          status: pick(["pending", "approved", "denied"], i),
          created_at: t(),
          resolved_at: null,
          resolved_by: null,
        });
        ids.signup = s;
        continue;
      }
      ins("org_members", { org_id: org, user_id: u, joined_at: t() });
      ins("member_roles", { org_id: org, user_id: u, role_id: pick(roleIds, i) });
      if (i % 7 === 0) ins("member_roles", { org_id: org, user_id: u, role_id: pick(roleIds, i + 3) });
      for (let k = 0; k < 4; k++) {
        const hash = `rt-${i}-${k}`;
        const family = `fam-${i}`;
        ins("refresh_tokens", {
          id: id(),
          user_id: u,
          family_id: family,
          token_hash: hash,
          created_at: t(),
          expires_at: now + 30 * 86400_000,
          used_at: k < 3 ? t() : null,
          revoked_at: null,
        });
        ids.refreshHash = hash;
        ids.refreshFamily = family;
      }
    }
    const members = users.filter((_, i) => i % 5 !== 4);
    ids.user = members[10] as string;
    ids.outsider = members[11] as string;

    for (let i = 0; i < 12; i++) {
      const u = id();
      ins("users", {
        id: u,
        email: `staff${i}@staff.invalid`,
        display_name: `Staff ${i}`,
        password_hash: null,
        created_at: t(),
        updated_at: t(),
      });
      ins("org_members", { org_id: org, user_id: u, joined_at: t() });
      ins("member_roles", { org_id: org, user_id: u, role_id: roleIds[3] });
      const sa = id();
      ins("service_accounts", {
        id: sa,
        org_id: org,
        user_id: u,
        name: `Staff ${i}`,
        created_by: members[0],
        provider: "modelrouter",
        modelrouter_model: "m",
        agent_default_repo_url: null,
        agent_default_ref: null,
        token_hash: `sa-hash-${i}`,
        token_expires_at: null,
        created_at: t(),
        updated_at: t(),
      });
      ids.staffUser = u;
      ids.staffAccount = sa;
      ids.staffTokenHash = `sa-hash-${i}`;
    }

    for (let i = 0; i < 150; i++) {
      const inv = id();
      ins("invites", {
        id: inv,
        org_id: org,
        email: i % 2 ? `invitee${i}@acme.test` : null,
        token_hash: `inv-${i}`,
        role_ids: JSON.stringify([roleIds[1]]),
        created_by: members[0],
        created_at: t(),
        expires_at: now + 7 * 86400_000,
        accepted_at: i % 3 ? null : t(),
        accepted_by: null,
      });
      ids.invite = inv;
      ids.inviteHash = `inv-${i}`;
    }

    // Spaces: a third private, each with ~12 members, a board of four columns, rooms, tasks, files, chat.
    for (let s = 0; s < 36; s++) {
      const space = id();
      const isPrivate = s % 3 === 0 ? 1 : 0;
      ins("spaces", {
        id: space,
        org_id: org,
        name: `Space ${s}`,
        description: "",
        is_private: isPrivate,
        created_by: pick(members, s),
        created_at: t(),
      });
      const spaceMembers = new Set<string>();
      for (let m = 0; m < 12; m++) spaceMembers.add(pick(members, s * 7 + m * 13));
      if (s % 2 === 0) spaceMembers.add(ids.user);
      let first = true;
      for (const m of spaceMembers) {
        ins("space_members", { space_id: space, user_id: m, role: first ? "owner" : "member", added_at: t() });
        first = false;
      }
      const board = id();
      ins("boards", { id: board, space_id: space, name: "Board", created_at: t() });
      const columns: string[] = [];
      for (let c = 0; c < 4; c++) {
        const col = id();
        columns.push(col);
        ins("board_columns", { id: col, board_id: board, name: `Column ${c}`, position: c });
      }

      // Files: Deliverables and a few folders at the root, subfolders, files; some deleted.
      const folders: string[] = [];
      const files: string[] = [];
      const node = (parent: string | null, name: string, kind: "file" | "folder", deleted = false) => {
        const n = id();
        let blob: string | null = null;
        if (kind === "file" && files.length % 4 === 0) {
          blob = id();
          ins("blobs", { id: blob, size_bytes: 600_000, checksum_sha256: "c", created_at: t() });
          for (let k = 0; k < 3; k++) ins("blob_chunks", { blob_id: blob, seq: k, data: new Uint8Array(16) });
        }
        ins("file_nodes", {
          id: n,
          space_id: space,
          parent_id: parent,
          kind,
          name,
          storage: kind === "file" ? (blob ? "blob" : "text") : null,
          blob_id: blob,
          mime_type: kind === "file" ? "text/plain" : null,
          size_bytes: kind === "file" ? 10 : null,
          checksum_sha256: kind === "file" ? "c" : null,
          created_by: pick(members, files.length),
          created_at: t(),
          updated_at: t(),
          deleted_at: deleted ? t() : null,
        });
        if (kind === "file" && !blob) {
          ins("file_docs", { node_id: n, state: new Uint8Array(8), text: "hello", updated_at: t() });
          for (let v = 0; v < 6; v++) {
            ins("file_versions", {
              id: id(),
              node_id: n,
              size_bytes: 5,
              checksum_sha256: `c${v}`,
              author_user_ids: "[]",
              content: new Uint8Array(4),
              created_at: t(),
            });
          }
        }
        if (kind === "folder") folders.push(n);
        else files.push(n);
        if (blob) ids.blob = blob;
        return n;
      };
      const deliverables = node(null, "Deliverables", "folder");
      for (let f = 0; f < 6; f++) {
        const top = node(null, `Folder ${f}`, "folder", f === 5);
        for (let g = 0; g < 3; g++) {
          const sub = node(top, `Sub ${g}`, "folder");
          for (let k = 0; k < 6; k++) node(sub, `notes-${k}.md`, "file", k === 5);
          if (s === 1 && f === 0 && g === 0) ids.deepFolder = sub;
        }
        for (let k = 0; k < 5; k++) node(top, `doc-${k}.txt`, "file");
        if (s === 1 && f === 0) ids.folder = top;
      }
      for (let k = 0; k < 8; k++) node(null, `readme-${k}.md`, "file", k === 7);
      const delivered: string[] = [];
      for (let k = 0; k < 10; k++) delivered.push(node(deliverables, `report-${k}.pdf`, "file"));

      // Tasks: ~150 per space over four columns; most assigned.
      const taskIds: string[] = [];
      for (let k = 0; k < 150; k++) {
        const task = id();
        taskIds.push(task);
        const column = pick(columns, k);
        ins("tasks", {
          id: task,
          space_id: space,
          board_id: board,
          column_id: column,
          title: `Task ${k}`,
          description: "",
          assignee_user_id: k % 6 === 0 ? null : pick(members, s + k),
          due_at: null,
          deliverable_required: k % 10 === 0 ? 1 : 0,
          deliverable_instructions: "",
          rank: (Math.floor(k / 4) + 1) * 65536,
          version: 1,
          created_by: pick(members, k),
          created_at: t(),
          updated_at: t(),
        });
        for (let m = 0; m < 4; m++)
          ins("task_messages", {
            id: id(),
            task_id: task,
            author_user_id: pick(members, k + m),
            content: "a comment",
            created_at: t(),
          });
        if (k % 10 === 0)
          ins("task_deliverables", {
            task_id: task,
            file_node_id: pick(delivered, k),
            added_by: pick(members, k),
            created_at: t(),
          });
      }

      // Labels: eight per space, on a third of the tasks (one or two each).
      const labelIds: string[] = [];
      for (let l = 0; l < 8; l++) {
        const label = id();
        labelIds.push(label);
        ins("labels", { id: label, space_id: space, name: `Label ${l}`, color: "#3b82f6", created_at: t() });
      }
      taskIds.forEach((task, k) => {
        if (k % 3 !== 0) return;
        ins("task_labels", { task_id: task, label_id: pick(labelIds, k) });
        if (k % 2 === 0) ins("task_labels", { task_id: task, label_id: pick(labelIds, k + 1) });
      });
      if (s === 0) ids.label = labelIds[0] as string;

      // Chat: three rooms, ~300 messages each, reactions and attachments on some.
      for (let r = 0; r < 3; r++) {
        const room = id();
        ins("chat_rooms", {
          id: room,
          space_id: space,
          name: r === 0 ? "general" : `room-${r}`,
          created_by: null,
          created_at: t(),
        });
        const pageIds: string[] = [];
        let root = "";
        for (let k = 0; k < 300; k++) {
          const msg = id();
          const created = t();
          // Every sixth message starts a thread; the next four reply in it, one of them in the room too.
          const reply = k % 6 !== 0 && k % 6 !== 5;
          if (k % 6 === 0) root = msg;
          ins("chat_messages", {
            id: msg,
            room_id: room,
            space_id: space,
            author_user_id: pick(members, k),
            content: `message ${k}`,
            created_at: created,
            updated_at: created,
            edited_at: null,
            deleted_at: k % 50 === 0 ? created : null,
            thread_root_id: reply ? root : null,
            also_in_room: reply && k % 6 === 4 ? 1 : 0,
            reply_count: k % 6 === 0 ? 4 : 0,
          });
          if (k % 3 === 0)
            ins("chat_reactions", { message_id: msg, user_id: pick(members, k), emoji: "👍", created_at: t() });
          if (k % 5 === 0)
            ins("chat_reactions", { message_id: msg, user_id: pick(members, k + 1), emoji: "🎉", created_at: t() });
          if (k % 7 === 0)
            ins("chat_attachments", {
              id: id(),
              message_id: msg,
              name: "a.png",
              mime: "image/png",
              size_bytes: 10,
              url: "https://example.com/a.png",
              created_at: created,
            });
          if (k >= 250) pageIds.push(msg);
        }
        if (s === 1 && r === 0) {
          ids.room = room;
          ids.pageMessageIds = pageIds;
          ids.message = pageIds[10] as string;
          ids.threadRoot = root;
        }
      }

      if (s === 1) {
        ids.space = space;
        ids.board = board;
        ids.column = columns[0] as string;
        ids.otherColumn = columns[1] as string;
        ids.task = taskIds[40] as string;
        ids.file = delivered[3] as string;
      }
      if (s === 3) ids.privateSpace = space;
    }

    // The inbox: read state of a third of the rooms and ~40 items for each of the first 150 members.
    const rooms = db.prepare("SELECT id, space_id FROM chat_rooms").all() as { id: string; space_id: string }[];
    const someMessages = db.prepare("SELECT id, room_id, created_at FROM chat_messages LIMIT 2000").all() as {
      id: string;
      room_id: string;
      created_at: number;
    }[];
    for (const [u, user] of members.slice(0, 150).entries()) {
      for (const [r, room] of rooms.entries()) {
        if ((r + u) % 3 !== 0) continue;
        const m = pick(someMessages, r + u);
        ins("chat_read_states", {
          user_id: user,
          room_id: room.id,
          message_id: m.id,
          message_created_at: m.created_at,
          updated_at: t(),
        });
      }
      for (let k = 0; k < 40; k++) {
        const m = pick(someMessages, u * 40 + k);
        const room = rooms.find((x) => x.id === m.room_id) as { id: string; space_id: string };
        ins("inbox_items", {
          id: id(),
          org_id: org,
          user_id: user,
          kind: pick(["mention", "assigned", "staff_reply", "approval"], k),
          space_id: room.space_id,
          actor_user_id: pick(members, k),
          chat_room_id: room.id,
          message_id: m.id,
          task_id: null,
          automation_id: null,
          proposal_id: null,
          summary: "hello",
          read_at: k % 3 === 0 ? t() : null,
          created_at: t(),
        });
      }
    }
    // A year of an organization's audit records, by a few dozen people, of every kind of act.
    for (let i = 0; i < 3000; i++) {
      ins("audit_events", {
        id: id(),
        org_id: org,
        actor_user_id: pick(members.slice(0, 40), i),
        actor_kind: "user",
        actor_label: "Someone",
        action: pick(["member.removed", "task.deleted", "file.deleted", "invite.created", "role.updated"], i),
        target_type: "task",
        target_id: id(),
        created_at: t(),
      });
    }
  })();
}

/** Runs one case and returns each statement it issued with its plan. */
function explain(c: Case): { sql: string; params: unknown[]; plan: string[] }[] {
  captured = [];
  if (c.raw) {
    const statement = sqlite.prepare(`EXPLAIN QUERY PLAN ${c.raw.sql}`);
    const rows = statement.all(c.raw.params as never) as { detail: string }[];
    statement.finalize();
    return [{ sql: c.raw.sql, params: [c.raw.params], plan: rows.map((r) => r.detail) }];
  }
  if (c.writes) sqlite.exec("SAVEPOINT plan_case");
  try {
    c.run?.();
  } finally {
    if (c.writes) {
      sqlite.exec("ROLLBACK TO plan_case");
      sqlite.exec("RELEASE plan_case");
    }
  }
  const statements = captured;
  captured = [];
  return statements.map(({ sql, params }) => {
    // Finalized at once: an EXPLAIN of a write left open counts as a write in progress and blocks savepoints.
    const statement = sqlite.prepare(`EXPLAIN QUERY PLAN ${sql}`);
    const rows = statement.all(...(params as never[])) as { id: number; parent: number; detail: string }[];
    statement.finalize();
    const depth = new Map<number, number>([[0, 0]]);
    const plan = rows.map((r) => {
      const d = (depth.get(r.parent) ?? 0) + 1;
      depth.set(r.id, d);
      return `${"  ".repeat(d - 1)}${r.detail}`;
    });
    return { sql, params, plan };
  });
}

/** What is wrong with a plan: full scans, automatic indexes, and sorts the case has not justified. */
function problemsOf(c: Case, plan: string[]): string[] {
  const problems: string[] = [];
  for (const line of plan.map((l) => l.trim())) {
    const scan = /^SCAN (\S+)/.exec(line);
    const name = scan?.[1] ?? "";
    // json_each is the virtual table of a JSON list parameter (`IN (SELECT value FROM json_each(?))`), not data.
    const notATable =
      CTE_NAMES.has(name) ||
      name.startsWith("(") ||
      /^SCAN (CONSTANT ROW|\d+-ROW VALUES CLAUSE)/.test(line) ||
      /VIRTUAL TABLE/.test(line);
    if (scan && !notATable && !c.scan?.[name]) problems.push(`full scan: ${line}`);
    if (/AUTOMATIC/.test(line)) problems.push(`automatic index (no usable index exists): ${line}`);
    if (/USE TEMP B-TREE/.test(line) && !c.tempBTree) problems.push(`unjustified sort: ${line}`);
  }
  return problems;
}

beforeAll(() => {
  const conn = openDatabase(join(tempDir("tandem-plans-"), "plans.db"));
  sqlite = conn.sqlite;
  migrate(sqlite);
  seed(sqlite);
  // The search index of the seeded rows, as migration 0015 makes it for an install that already holds them.
  const migration = readFileSync(join(import.meta.dir, "../../migrations/0015_search.sql"), "utf8");
  sqlite.exec(migration.split("--> statement-breakpoint").find((s) => s.includes("INSERT INTO `search_docs`")) ?? "");
  sqlite.exec("ANALYZE");
  // The stores run on a drizzle connection that logs every statement they send.
  const db = drizzle({
    client: sqlite,
    schema,
    logger: { logQuery: (sql: string, params: unknown[]) => void captured.push({ sql, params }) },
  });
  stores = {
    spaces: new SpacesStore(db, new AccessMemo()),
    tasks: new TasksStore(db),
    chat: new ChatStore(db),
    files: new FilesStore(db),
    members: new MembersStore(db, new AccessMemo()),
    organization: new OrganizationStore(db),
    invites: new InvitesStore(db),
    signups: new SignupsStore(db),
    auth: new AuthStore(db),
    staff: new StaffStore(db, new AccessMemo()),
    activity: new ActivityStore(db),
    audit: new AuditStore(db),
    automations: new AutomationsStore(db),
    proposals: new ProposalsStore(db),
    integrations: new IntegrationsStore(db),
    labels: new LabelsStore(db),
    versions: new VersionsStore(db),
  };
});

afterAll(() => sqlite?.close());

// The temp B-trees, reported (each case below says why it is acceptable):
// - "FOR LAST TERM OF ORDER BY" (spaces list, my tasks, chat rooms, invites, pending signup requests, staff
//   list): the index gives the order up to its last column, and only rows that tie on it (same created_at or
//   updated_at) are sorted by id, group by group, so LIMIT still stops early. Appending `id` to spaces_org_idx,
//   tasks_assignee_idx, chat_rooms_space_idx, invites_org_idx, signup_requests_org_idx and
//   service_accounts_org_idx would remove them; they cost next to nothing, so they are allowed.
// - "FOR ORDER BY" (space members, file listings and search, deliverables, reactions and attachments of a
//   page, org members, all signup requests, roles, ancestry): each sorts a set bounded by its filter (one
//   space, one folder, one task, one page, one node's ancestors) or a listing that returns every row it reads,
//   and only rows the index already found. Files are ordered by an expression (folders first, then lower(name))
//   that no index holds. A sort over a whole, growing table would not be allowed.
const SMALL = (what: string) => `sorts ${what}, a small set already found through the index`;

const cases: Case[] = [
  // Spaces
  {
    name: "spaces: list visible to a member (public or member of)",
    run: () => stores.spaces.visibleSpaces(ids.org, ids.user, false),
    tempBTree: SMALL("the spaces of the org (index gives created_at order; id is the tie-break)"),
  },
  {
    name: "spaces: list visible to org.manage",
    run: () => stores.spaces.visibleSpaces(ids.org, ids.user, true),
    tempBTree: SMALL("the spaces of the org (index gives created_at order; id is the tie-break)"),
  },
  {
    name: "spaces: space with the caller's role",
    run: () => stores.spaces.spaceWithRole(ids.org, ids.space, ids.user),
  },
  {
    name: "spaces: members of a space",
    run: () => stores.spaces.members(ids.space),
    tempBTree: SMALL("the members of one space by added_at"),
  },
  { name: "spaces: one space member", run: () => stores.spaces.member(ids.space, ids.user) },
  { name: "spaces: a user's memberships", run: () => stores.spaces.memberships(ids.user) },
  { name: "spaces: count owners", run: () => stores.spaces.countOwners(ids.space) },
  { name: "spaces: board of a space", run: () => stores.spaces.board(ids.space) },
  { name: "spaces: columns of a board", run: () => stores.spaces.columns(ids.board) },
  { name: "spaces: column in space", run: () => stores.spaces.column(ids.space, ids.column) },
  { name: "spaces: user exists", run: () => stores.spaces.userExists(ids.user) },
  { name: "spaces: whether a column has tasks (deleting it)", run: () => stores.spaces.columnHasTasks(ids.column) },
  {
    name: "spaces: shift columns (a column added, moved or deleted)",
    writes: true,
    run: () => stores.spaces.shiftColumns(ids.board, 1, 3, 1),
  },

  // Labels
  { name: "labels: labels of a space", run: () => stores.labels.ofSpace(ids.space) },
  { name: "labels: label by id", run: () => stores.labels.label(ids.space, ids.label) },

  // Tasks
  { name: "tasks: tasks of a column", run: () => stores.tasks.column(ids.column) },
  { name: "tasks: task by id", run: () => stores.tasks.task(ids.space, ids.task) },
  { name: "tasks: order of a column (ids and ranks)", run: () => stores.tasks.ranksAt(ids.column, "", 0, -1) },
  {
    name: "tasks: my tasks",
    run: () => stores.tasks.assignedTo(ids.org, ids.user, false),
    tempBTree: "RIGHT PART only: the index (assignee, updated_at) gives the order; id breaks ties of equal updated_at",
  },
  {
    name: "tasks: my tasks (org.manage)",
    run: () => stores.tasks.assignedTo(ids.org, ids.user, true),
    tempBTree: "RIGHT PART only: the index (assignee, updated_at) gives the order; id breaks ties of equal updated_at",
  },
  { name: "tasks: every task of an assignee (staff deleted)", run: () => stores.tasks.assignedAnywhere(ids.user) },
  { name: "tasks: tasks carrying a label (label deleted)", run: () => stores.tasks.withLabel(ids.label) },
  { name: "tasks: which task carries which label, in a space", run: () => stores.tasks.labelLinks(ids.space) },
  { name: "tasks: one comment more", raw: { sql: COUNT_COMMENT_SQL, params: { id: ids.task } } },
  {
    name: "tasks: a task's labels replaced",
    writes: true,
    run: () => {
      const task = stores.tasks.task(ids.space, ids.task);
      if (!task) throw new Error("no seeded task");
      captured = [];
      stores.tasks.save({ ...task, labelIds: [] }, { ...task, labelIds: [ids.label] });
    },
  },
  { name: "tasks: task messages page", run: () => stores.tasks.messages(ids.task, now + 10_000_000, 50) },
  { name: "tasks: latest task message", run: () => stores.tasks.latestMessageAt(ids.task) },
  { name: "tasks: latest update of an assignee's tasks", run: () => stores.tasks.latestUpdateOfAssignee(ids.user) },
  { name: "tasks: latest deliverable link of a task", run: () => stores.tasks.latestDeliverableAt(ids.task) },
  {
    name: "tasks: deliverables of a task",
    run: () => stores.tasks.deliverables(ids.task),
    tempBTree: SMALL("the deliverable links of one task"),
  },
  {
    name: "tasks: respace a column",
    writes: true,
    run: () => stores.tasks.respace(ids.column, 65536, ids.task, 3),
  },
  {
    name: "tasks: unlink a deliverable",
    writes: true,
    run: () => stores.tasks.unlinkDeliverable(ids.task, ids.file),
  },

  // Chat
  {
    name: "chat: rooms of a space",
    run: () => stores.chat.rooms(ids.space),
    tempBTree: SMALL("the rooms of one space (index gives created_at order; id is the tie-break)"),
  },
  { name: "chat: room by id", run: () => stores.chat.room(ids.space, ids.room) },
  { name: "chat: room by name", run: () => stores.chat.roomByName(ids.space, "General") },
  { name: "chat: messages page", run: () => stores.chat.page(ids.room, now + 10_000_000, 50) },
  { name: "chat: message by id", run: () => stores.chat.message(ids.room, ids.message) },
  { name: "chat: latest message time", run: () => stores.chat.latestCreatedAt(ids.room) },
  { name: "chat: a deleted room to purge", run: () => stores.chat.deletedRoom() },
  {
    name: "chat: purge a batch of a deleted room's messages",
    raw: { sql: PURGE_MESSAGES_SQL, params: { room: ids.room, batch: 1000 } },
  },
  {
    name: "chat: reactions of a page (its span of the timeline)",
    run: () => stores.chat.reactionsBetween(ids.room, now - 10_000_000, now + 10_000_000),
    tempBTree: SMALL("the reactions of one page of messages"),
  },
  {
    name: "chat: attachments of a page (its span of the timeline)",
    run: () => stores.chat.attachmentsBetween(ids.room, now - 10_000_000, now + 10_000_000),
    tempBTree: SMALL("the attachments of one page of messages"),
  },
  { name: "chat: a thread's page", run: () => stores.chat.threadPage(ids.threadRoot, now + 10_000_000, 50) },
  { name: "chat: a thread's newest live reply", run: () => stores.chat.newestReplyAt(ids.threadRoot) },
  // Each reads a few rows (one page of a thread, one message) and sorts them.
  ...(
    [
      ["reactions of a thread's page (its span)", () => stores.chat.threadReactionsBetween(ids.threadRoot, 0, now * 2)],
      [
        "attachments of a thread's page (its span)",
        () => stores.chat.threadAttachmentsBetween(ids.threadRoot, 0, now * 2),
      ],
      ["reactions of one message (a thread's root)", () => stores.chat.reactionsOf(ids.threadRoot)],
      ["attachments of one message (a thread's root)", () => stores.chat.attachmentsOf(ids.threadRoot)],
    ] as const
  ).map(([what, run]) => ({ name: `chat: ${what}`, run, tempBTree: SMALL(what) })),
  { name: "chat: one reaction", run: () => stores.chat.reaction(ids.message, ids.user, "👍") },
  {
    name: "chat: soft-delete a message with its reactions and attachments",
    writes: true,
    run: () => stores.chat.softDeleteMessage(stores.chat.message(ids.room, ids.message)!, now),
  },

  // Files
  { name: "files: node by id", run: () => stores.files.node(ids.space, ids.file) },
  {
    name: "files: children of the root",
    run: () => stores.files.children(ids.space, null),
    tempBTree: SMALL("the live children of one folder (folders first, then by name)"),
  },
  {
    name: "files: children of a folder",
    run: () => stores.files.children(ids.space, ids.folder),
    tempBTree: SMALL("the live children of one folder (folders first, then by name)"),
  },
  { name: "files: tree of a space", run: () => stores.files.tree(ids.space) },
  {
    name: "files: search the whole space",
    run: () => stores.files.search(ids.space, null, "notes", true),
    tempBTree: SMALL("the matches in one space (folders first, then by name)"),
  },
  {
    name: "files: search the root",
    run: () => stores.files.search(ids.space, null, "readme", false),
    tempBTree: SMALL("the matching children of one folder"),
  },
  {
    name: "files: search a folder",
    run: () => stores.files.search(ids.space, ids.folder, "doc", false),
    tempBTree: SMALL("the matching children of one folder"),
  },
  { name: "files: sibling name check at the root", run: () => stores.files.siblingNamed(ids.space, null, "Folder 1") },
  {
    name: "files: sibling name check in a folder",
    run: () => stores.files.siblingNamed(ids.space, ids.folder, "doc-1.txt"),
  },
  { name: "files: Deliverables root folder", run: () => stores.files.rootFolderNamed(ids.space, "deliverables") },
  {
    name: "files: ancestry of a node",
    raw: { sql: ANCESTRY_SQL, params: { id: ids.deepFolder } },
    tempBTree: "sorts the path from one node up to the root by depth: as many rows as the node is deep",
  },
  { name: "files: text document of a file", run: () => stores.files.doc(ids.file) },
  { name: "files: blob chunk", run: () => stores.files.chunk(ids.blob, 1) },
  {
    name: "files: soft-delete a subtree",
    writes: true,
    raw: { sql: SUBTREE_DELETE_SQL, params: { id: ids.folder, now } },
  },

  // Organization, members, invites, signups
  { name: "members: permission rows of a member", run: () => stores.members.memberPermissions(ids.org, ids.user) },
  { name: "members: is member", run: () => stores.members.isMember(ids.org, ids.user) },
  { name: "members: user by id", run: () => stores.members.user(ids.user) },
  { name: "members: user with staff account (GET /me)", run: () => stores.members.userWithStaff(ids.user) },
  { name: "members: user by email (login)", run: () => stores.members.userByEmailAddress("user12@acme.test") },
  { name: "organization: organization by id", run: () => stores.organization.org(ids.org) },
  {
    name: "organization: organizations of a user",
    run: () => stores.organization.orgsOfUser(ids.user),
    scan: { organizations: "one organization per install (contract §1): the table holds one row" },
    tempBTree: "sorts the caller's organizations: one per install",
  },
  {
    name: "organization: the organization of the install",
    run: () => stores.organization.onlyOrg(),
    scan: { organizations: "one organization per install (contract §1): the table holds one row" },
    tempBTree: "one row to sort (one organization per install)",
  },
  {
    name: "members: members of the org",
    run: () => stores.members.members(ids.org),
    tempBTree:
      "lists every member of the org by joined_at: the whole filtered set is returned, so sorting it costs no more than reading it",
  },
  { name: "members: role ids of a member", run: () => stores.members.memberRoleIds(ids.org, ids.user) },
  { name: "members: people holding a role", run: () => stores.members.countPeopleWithRole(ids.role) },
  {
    name: "members: roles of the org",
    run: () => stores.members.roles(ids.org),
    // roles_org_name_uq and roles_org_system_uq both start with org_id, but with one organization per install
    // `org_id = ?` matches every row, so the planner rightly reads the table: the answer is the whole table.
    scan: { roles: "one organization per install: the org's roles are every row of the table, all returned" },
    tempBTree: SMALL("the roles of the org (system first, then by creation)"),
  },
  { name: "members: role by id", run: () => stores.members.role(ids.org, ids.role) },
  { name: "members: roles by ids (IN list)", run: () => stores.members.rolesByIds(ids.org, ids.roleIds) },
  { name: "members: system role", run: () => stores.members.systemRole(ids.org, "member") },
  { name: "members: role by name", run: () => stores.members.roleByName(ids.org, "member") },
  {
    name: "invites: invites of the org",
    run: () => stores.invites.invites(ids.org),
    tempBTree: "RIGHT PART only: the index (org_id, created_at) gives the order; id breaks ties",
  },
  { name: "invites: invite by id", run: () => stores.invites.invite(ids.org, ids.invite) },
  { name: "invites: invite by token hash", run: () => stores.invites.inviteByTokenHash(ids.inviteHash) },
  {
    name: "signups: signup requests of the org",
    run: () => stores.signups.signupRequests(ids.org),
    tempBTree: "lists every request of the org newest first: the whole filtered set is returned anyway",
  },
  {
    name: "signups: pending signup requests",
    run: () => stores.signups.signupRequests(ids.org, "pending"),
    tempBTree: "RIGHT PART only: the index (org_id, status, created_at) gives the order; id breaks ties",
  },
  { name: "signups: signup request by id", run: () => stores.signups.signupRequest(ids.org, ids.signup) },
  {
    name: "signups: latest signup request of a user",
    run: () => stores.signups.latestSignupRequestOf(ids.user),
    tempBTree: SMALL("the signup requests of one user"),
  },
  { name: "signups: has pending signup", run: () => stores.signups.hasPendingSignup(ids.org, ids.user) },
  {
    name: "members: remove a member with their space memberships",
    writes: true,
    run: () => {
      stores.spaces.removeFromOrgSpaces(ids.org, ids.outsider);
      stores.members.removeMember(ids.org, ids.outsider);
    },
    // The IN subquery lists the org's spaces; with one organization per install that is every space, so the
    // planner reads `spaces` (O(spaces), once per member removal) and probes space_members by primary key.
    // Cheap enough for an admin action; space_members_user_idx would serve it too.
    scan: { spaces: "one organization per install: `spaces.org_id = ?` is every space; runs on member removal only" },
  },
  {
    name: "members: set a member's roles",
    writes: true,
    run: () => stores.members.setMemberRoles(ids.org, ids.outsider, ids.roleIds),
  },

  // Tokens and staff
  { name: "auth: refresh token by hash", run: () => stores.auth.refreshByHash(ids.refreshHash) },
  { name: "staff: service account by token hash", run: () => stores.staff.byTokenHash(ids.staffTokenHash) },
  { name: "auth: revoke a session family", writes: true, run: () => stores.auth.revokeFamily(ids.refreshFamily, now) },
  { name: "auth: revoke a user's sessions", writes: true, run: () => stores.auth.revokeUser(ids.user, now) },
  {
    name: "staff: service accounts of the org",
    run: () => stores.staff.list(ids.org),
    tempBTree: "RIGHT PART only: the index (org_id, created_at) gives the order; id breaks ties",
  },
  { name: "staff: service account by id", run: () => stores.staff.get(ids.org, ids.staffAccount) },
  // The staff name check (POST and PATCH /service-accounts) searches service_accounts_key_uq (org_id, name_key).
  { name: "staff: service account by name", run: () => stores.staff.byName(ids.org, "staff 3") },
  {
    name: "staff: who a mention can name (members of the org with their staff accounts)",
    run: () => stores.staff.mentionables(ids.org),
  },

  // AI staff
  {
    name: "activity: newest entries of the spaces a member sees",
    run: () => stores.activity.list(ids.org, [ids.space], { before: now, limit: 50 }),
  },
  {
    name: "activity: newest entries of one staff member",
    run: () => stores.activity.list(ids.org, [ids.space], { staffUserId: ids.staffUser, before: now, limit: 50 }),
  },
  { name: "activity: one job's entry", run: () => stores.activity.get(ids.staffAccount) },
  {
    name: "activity: the newest entry of a staff member's reply (a retry's check)",
    run: () => stores.activity.latestOfReply(ids.staffUser, ids.staffAccount),
  },

  // The audit log
  { name: "audit: a page, newest first", run: () => stores.audit.list(ids.org, { before: now + 1e9, limit: 50 }) },
  {
    name: "audit: a page of one person's acts",
    run: () => stores.audit.list(ids.org, { before: now + 1e9, limit: 50, actorUserId: ids.user }),
  },
  {
    name: "audit: a page of one action",
    run: () => stores.audit.list(ids.org, { before: now + 1e9, limit: 50, action: "member.removed" }),
  },
  { name: "audit: the newest record's time (each record's stamp)", raw: { sql: NEWEST_SQL, params: { org: ids.org } } },
  {
    name: "audit: a batch of year-old records removed",
    raw: { sql: DELETE_OLD_SQL, params: { before: now + 1000, limit: 1000 } },
    scan: { o: "the organizations, one per install: each then reads its old records through audit_events_org_idx" },
  },
  { name: "automations: of a space", run: () => stores.automations.list(ids.space) },
  { name: "automations: by id", run: () => stores.automations.get(ids.space, ids.staffAccount) },
  // Inbound webhook deliveries: every one reads these.
  { name: "automations: by id alone (a run)", run: () => stores.automations.byId(ids.staffAccount) },
  {
    name: "automations: what a delivery reads of its automation, with its queued runs (a flood's cap)",
    raw: { sql: WEBHOOK_STATE_SQL, params: { id: ids.staffAccount } },
  },
  {
    name: "automations: a delivery seen within the window",
    raw: { sql: DELIVERY_RUN_SQL, params: { automationId: ids.staffAccount, deliveryId: "msg_1", since: now } },
  },
  {
    name: "automations: a delivery taken",
    raw: {
      sql: TAKE_DELIVERY_SQL,
      params: {
        automationId: ids.staffAccount,
        deliveryId: "msg_1",
        runId: ids.staffAccount,
        createdAt: now,
        since: now,
      },
    },
  },
  {
    name: "automations: deliveries forgotten after 24 hours",
    run: () => stores.automations.pruneDeliveries(now),
    writes: true,
  },
  { name: "proposals: of a file", run: () => stores.proposals.list(ids.file) },
  { name: "proposals: by id", run: () => stores.proposals.get(ids.space, ids.staffAccount) },
  {
    name: "proposals: pending ones of a space's live files",
    run: () => stores.proposals.ofSpace(ids.space, "pending"),
    tempBTree: "the proposals of every live file of the space are merged by date: a space's files, not a table",
  },
  // Versions: a file's, by its index (node, time).
  { name: "versions: of a file, newest first", run: () => stores.versions.list(ids.file) },
  { name: "versions: one of a file", run: () => stores.versions.get(ids.file, ids.file) },
  { name: "versions: a file's newest", run: () => stores.versions.newest(ids.file) },
  { name: "versions: a file's versions older than a day", run: () => stores.versions.aged(ids.file, now) },
  { name: "versions: drop one", run: () => stores.versions.delete(ids.file), writes: true },
  { name: "versions: authors of a kept one", run: () => stores.versions.setAuthors(ids.file, []), writes: true },
  {
    name: "versions: a deleted folder's files' versions",
    raw: { sql: SUBTREE_VERSIONS_DELETE_SQL, params: { id: ids.folder } },
    writes: true,
  },
  {
    name: "versions: files with versions that aged past a day (the hourly maintenance)",
    raw: { sql: NODES_WITH_VERSIONS_BETWEEN_SQL, params: { from: now - 8 * 86_400_000, to: now } },
    scan: {
      file_versions:
        "once an hour, off any request path: a read of the versions' index (no content), as the time range spans every file",
    },
  },
  { name: "integrations: the org's key of a provider", run: () => stores.integrations.get(ids.org, "modelrouter") },

  // Jobs: the table holds only the live queue (a job that ends is deleted), read in queue order.
  {
    name: "jobs: claim the first due job",
    raw: { sql: CLAIM_SQL, params: { lease: "l", until: now + 30_000, now } },
    scan: { jobs: "the live queue in queue order, stopping at the first due job: past the running ones only" },
  },
  {
    name: "jobs: is a job due",
    raw: { sql: DUE_SQL, params: { now } },
    scan: { jobs: "the claim's scan, read only; the runner looks only when a worker is free" },
  },
  { name: "jobs: a lapsed claim", raw: { sql: LAPSED_SQL, params: { now } } },
  { name: "jobs: reclaim lapsed claims", raw: { sql: RECLAIM_SQL, params: { before: now, now } } },
  {
    name: "jobs: a live job with a value in its payload (a retry under way)",
    raw: { sql: LIVE_WITH_SQL, params: { kind: "staff_reply", path: "$.replaces", value: "x" } },
    scan: { jobs: "the live queue only (a job that ends is deleted); asked when a person retries a reply" },
  },
  // Search
  ...(() => {
    const scope = () => ({
      spaces: JSON.stringify([ids.space, ids.privateSpace]),
      kinds: JSON.stringify(["message", "task", "task_message", "file"]),
      before: now + 10_000_000,
      beforeDoc: Number.MAX_SAFE_INTEGER,
      window: 1000,
    });
    return [
      {
        name: "search: the newest matches of every word in scope",
        raw: { sql: WORDS_SQL, params: { ...scope(), match: '"hello"' } },
      },
      {
        name: "search: file names holding every part",
        raw: { sql: NAME_PARTS_SQL, params: { ...scope(), match: '"doc"' } },
      },
      {
        name: "search: scores between two docs",
        raw: { sql: RANK_SQL, params: { match: '"hello"', low: 1, high: 5000 } },
      },
      { name: "search: one excerpt", raw: { sql: SNIPPET_SQL, params: { match: '"hello"', doc: 7 } } },
      { name: "search: how many hold a word", raw: { sql: COUNT_SQL, params: { match: '"hello"', cap: 10_000 } } },
      {
        name: "search: a file's path",
        raw: { sql: PATH_SQL, params: { id: ids.file } },
        tempBTree: "sorts the path from one node up to the root by depth: as many rows as the node is deep",
      },
      {
        name: "search: drop a deleted folder's subtree",
        raw: { sql: SUBTREE_DOCS_DELETE_SQL, params: { id: ids.folder } },
      },
      {
        name: "search: deleted rooms' messages in a span of docs",
        raw: { sql: ROOM_SPAN_DELETE_SQL, params: { from: 0, to: 20_000 } },
      },
      {
        name: "search: the newest item of the spaces searched",
        raw: { sql: NEWEST_DOC_SQL, params: { spaces: JSON.stringify([ids.space]) } },
      },
      ...Object.entries(LIVE_SQL).map(([kind, sql]) => ({
        name: `search: is a ${kind} still there`,
        raw: { sql, params: { itemId: "x", spaceId: ids.space } },
      })),
      {
        name: "search: index a batch of new messages",
        raw: { sql: MESSAGES_INDEX_SQL, params: { ids: JSON.stringify([ids.message]) } },
      },
      {
        name: "search: index a batch of new task messages",
        raw: { sql: TASK_MESSAGES_INDEX_SQL, params: { ids: JSON.stringify([ids.message]) } },
      },
      {
        name: "search: the last task messages stored (at start)",
        raw: { sql: LATEST_TASK_MESSAGES_SQL, params: { below: Number.MAX_SAFE_INTEGER, limit: 1000 } },
      },
      {
        name: "search: how far messages are indexed",
        raw: { sql: MESSAGES_WATERMARK_SQL, params: { at: now } },
      },
      {
        name: "search: the last messages stored (at start)",
        raw: { sql: LATEST_MESSAGES_SQL, params: { below: Number.MAX_SAFE_INTEGER, limit: 1000 } },
      },
      {
        name: "search: texts indexed behind their file (at start)",
        raw: { sql: STALE_TEXTS_SQL, params: {} },
        scan: { f: "at start only: every text file's checksum against the one indexed" },
      },
    ] satisfies Case[];
  })(),
  // Inbox (raw statements: planned as written, with realistic parameters)
  {
    name: "inbox: unread counts of the rooms of the spaces a person sees",
    raw: {
      sql: UNREAD_ROOMS_SQL,
      params: { userId: "$user", joinedAt: 0, spaceIds: "$spaces" },
    },
  },
  {
    name: "inbox: a page of a person's items",
    raw: {
      sql: ITEMS_SQL,
      params: { userId: "$user", orgId: "$org", spaceIds: "$spaces", unreadOnly: 0, before: now * 2, limit: 50 },
    },
  },
  {
    name: "inbox: a page of a person's unread items",
    raw: {
      sql: ITEMS_SQL,
      params: { userId: "$user", orgId: "$org", spaceIds: "$spaces", unreadOnly: 1, before: now * 2, limit: 50 },
    },
  },
  {
    name: "inbox: count a person's unread items",
    raw: { sql: UNREAD_ITEMS_SQL, params: { userId: "$user", orgId: "$org", spaceIds: "$spaces" } },
  },
  {
    name: "inbox: reading a room reads its items up to a message",
    raw: { sql: READ_ROOM_ITEMS_SQL, params: { userId: "$user", roomId: "$room", upTo: now * 2, now } },
  },
  {
    name: "inbox: reading a thread reads its items up to a reply",
    raw: {
      sql: READ_THREAD_ITEMS_SQL,
      params: { userId: "$user", roomId: "$room", rootId: "$root", upTo: now * 2, now },
    },
  },
  {
    name: "inbox: who wrote in a thread before a reply",
    raw: { sql: THREAD_AUTHORS_SQL, params: { rootId: "$root", before: now * 2 } },
    tempBTree: SMALL("the authors of one thread, made distinct"),
  },
  {
    name: "inbox: chat posts as they are now (a catch-up at start)",
    raw: { sql: POSTS_SQL, params: { ids: JSON.stringify([ids.message]) } },
  },
  {
    name: "inbox: the last chat posts stored (at start)",
    raw: { sql: STORED_POSTS_SQL, params: { below: Number.MAX_SAFE_INTEGER, limit: 1000 } },
  },
  {
    name: "inbox: a member leaving forgets their read state",
    raw: { sql: FORGET_READ_STATES_SQL, params: { userId: "$user", orgId: "$org" } },
  },
  ...INBOX_POINT_SQL.map((sql) => ({
    name: `inbox: ${sql.replace(/\s+/g, " ").slice(0, 80)}`,
    raw: { sql, params: Object.fromEntries([...sql.matchAll(/\$(\w+)/g)].map((m) => [m[1], "x"])) },
  })),
  // Email and push
  {
    name: "email: the oldest items neither read nor emailed",
    raw: { sql: AWAITING_EMAIL_SQL, params: { before: now, limit: 2000 } },
  },
  { name: "email: items emailed", raw: { sql: MARK_EMAILED_SQL, params: { ids: '["x"]', now } } },
  ...PUSH_SQL.map((sql) => ({
    name: `push: ${sql.replace(/\s+/g, " ").slice(0, 80)}`,
    raw: { sql, params: Object.fromEntries([...sql.matchAll(/\$(\w+)/g)].map((m) => [m[1], "x"])) },
    ...(sql.includes("ORDER BY") ? { tempBTree: SMALL("a person's browsers, at most 20") } : {}),
  })),
  { name: "members: one member (the live directory)", run: () => stores.members.member(ids.org, ids.user) },
  { name: "members: a user's organizations", run: () => stores.members.orgsOf(ids.user) },
  { name: "members: holders of a role", run: () => stores.members.holdersOf(ids.role) },
];
/**
 * Parent tables whose rows a request deletes (directly or by cascade). Deleting a parent row makes SQLite
 * look up the child rows of every foreign key that points at it (to cascade, set null, or check); without an
 * index whose leading columns are the child key, each lookup is a full scan of the child table. These lookups
 * never show in EXPLAIN QUERY PLAN, so the check reads the schema.
 */
const DELETED_ON_REQUEST_PATHS: Record<string, string> = {
  users: "DELETE /service-accounts/{id} deletes the staff member's backing user (StaffStore.deleteWithUser)",
  org_members: "DELETE /members/{userId}",
  space_members: "DELETE /spaces/{id}/members/{userId}",
  roles: "DELETE /roles/{roleId}",
  invites: "DELETE /invites/{inviteId}",
  tasks: "DELETE /spaces/{id}/tasks/{taskId}",
  chat_rooms: "DELETE /spaces/{id}/chat-rooms/{roomId}",
  chat_messages: "cascade from a room delete",
  blobs: "PUT /files/{id}/content replaces (and deletes) a file's blob",
};

/**
 * Child keys left unindexed on purpose, with why. `chat_reactions(user_id)`: every reaction, a staff member's
 * 💭 in the transaction of each post that mentions it included, would write that index too; the price is a
 * scan of the reactions when a staff member's account is deleted (measured: 65-80 ms with 200k reactions, ~0.4 s with a million).
 */
const UNINDEXED_ON_PURPOSE = new Set(["chat_reactions(user_id) -> users"]);

describe("foreign keys of deleted rows", () => {
  // Deleting a user (DELETE /service-accounts/{id}) checks every foreign key to users: each needs an index on
  // the child side, or the delete reads that whole table (chat_messages, the largest) inside the write lock.
  it("every foreign key into a table that requests delete from is indexed on the child side", () => {
    const tables = (
      sqlite.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'").all() as {
        name: string;
      }[]
    ).map((r) => r.name);
    const unindexed: string[] = [];
    for (const table of tables) {
      const keys = sqlite.prepare(`PRAGMA foreign_key_list("${table}")`).all() as {
        id: number;
        table: string;
        from: string;
        on_delete: string;
      }[];
      // Full (not partial) indexes, primary key included, as lists of their leading columns.
      const indexes = (sqlite.prepare(`PRAGMA index_list("${table}")`).all() as { name: string; partial: number }[])
        .filter((i) => !i.partial)
        .map((i) =>
          (sqlite.prepare(`PRAGMA index_info("${i.name}")`).all() as { name: string | null }[]).map((c) => c.name),
        );
      const byKey = new Map<number, typeof keys>();
      for (const k of keys) byKey.set(k.id, [...(byKey.get(k.id) ?? []), k]);
      for (const parts of byKey.values()) {
        const parent = parts[0]?.table ?? "";
        if (!DELETED_ON_REQUEST_PATHS[parent]) continue;
        const columns = parts.map((p) => p.from);
        const indexed = indexes.some((ix) => columns.every((c) => ix.slice(0, columns.length).includes(c)));
        if (!indexed && !UNINDEXED_ON_PURPOSE.has(`${table}(${columns.join(", ")}) -> ${parent}`))
          unindexed.push(
            `${table}(${columns.join(", ")}) -> ${parent} ON DELETE ${parts[0]?.on_delete}: deleting a ${parent} row scans ${table} (${DELETED_ON_REQUEST_PATHS[parent]})`,
          );
      }
    }
    if (unindexed.length > 0) console.error(unindexed.join("\n"));
    expect(unindexed).toEqual([]);
  });
});

describe("query plans", () => {
  it("the flood cap counts an automation's queued runs from their own index, not its whole history", () => {
    const plan = sqlite.prepare(`EXPLAIN QUERY PLAN ${WEBHOOK_STATE_SQL}`).all({ id: "x" }) as { detail: string }[];
    expect(plan.map((r) => r.detail)).toEqual([
      "SEARCH automations USING INDEX sqlite_autoindex_automations_1 (id=?)",
      "SCALAR SUBQUERY 1",
      "SEARCH automation_runs USING COVERING INDEX automation_runs_queued_idx (automation_id=?)",
    ]);
  });

  it("the seed is realistic enough for the planner", () => {
    const count = (table: string) => (sqlite.prepare(`SELECT count(*) AS n FROM ${table}`).get() as { n: number }).n;
    expect(count("tasks")).toBeGreaterThan(5000);
    expect(count("chat_messages")).toBeGreaterThan(30000);
    expect(count("file_nodes")).toBeGreaterThan(3000);
    expect(count("sqlite_stat1")).toBeGreaterThan(20);
    for (const value of Object.values(ids)) expect(value.length).toBeGreaterThan(0);
  });

  for (const c of cases) {
    it(c.name, () => {
      const statements = explain(c);
      expect(statements.length, `${c.name} issued no statement`).toBeGreaterThan(0);
      const report: string[] = [];
      for (const s of statements) {
        const problems = problemsOf(c, s.plan);
        if (problems.length > 0)
          report.push(
            [
              `${c.name}:`,
              ...problems.map((p) => `  ${p}`),
              `  SQL: ${s.sql.replace(/\s+/g, " ")}`,
              `  params: ${JSON.stringify(s.params)}`,
              "  plan:",
              ...s.plan.map((l) => `    ${l}`),
            ].join("\n"),
          );
      }
      if (process.env.PRINT_PLANS)
        for (const s of statements)
          console.log(`${c.name}\n  ${s.sql.replace(/\s+/g, " ")}\n${s.plan.map((l) => `    ${l}`).join("\n")}`);
      if (report.length > 0) console.error(report.join("\n\n"));
      expect(report).toEqual([]);
    });
  }
});
