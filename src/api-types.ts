/**
 * The shapes of the requests and answers the web UI uses, derived from the features' zod schemas: the one
 * server module the UI imports, and only with `import type`, so neither zod nor server code reaches the
 * browser bundle. Answers are what the schemas output (`z.infer`), requests what they accept (`z.input`);
 * envelopes the routes declare inline (`{tasks: [...]}`) are written here from those parts. When a schema
 * file moves, only the paths below change.
 */
import type { z } from "zod";
import type { activityOut, toolCallOut } from "./features/activity/activity.schemas";
import type { AuditAction as AuditActionOut, AuditEventOut } from "./features/audit/audit.schemas";
import type { changePasswordIn, loginIn } from "./features/auth/auth.schemas";
import type {
  AUTOMATION_KINDS,
  AutomationOut,
  AutomationStatus as AutomationStatusOut,
  createAutomationIn,
  patchAutomationIn,
  RunOut,
} from "./features/automations/automations.schemas";
import type {
  AttachmentOut,
  createRoomIn,
  editMessageIn,
  MessageOut,
  postMessageIn,
  ReactionOut,
  RoomOut,
  UploadedOut,
} from "./features/chat/chat.schemas";
import type { createFolderIn, createTextIn, NodeOut, patchNodeIn } from "./features/files/files.schemas";
import type { InboxReadOut } from "./features/inbox/inbox.events";
import type {
  InboxItemOut,
  ItemKind,
  markReadIn,
  NotificationSettingsOut,
  putNotificationsIn,
  RoomUnreadOut,
  readRoomIn,
} from "./features/inbox/inbox.schemas";
import type { instanceOut, SetupOut, setupIn } from "./features/instance/instance.schemas";
import type {
  IntegrationOut,
  KeyCheckOut,
  Provider as ProviderName,
} from "./features/integrations/integrations.schemas";
import type { acceptInviteIn, createInviteIn, InviteOut, inviteInfoOut } from "./features/invites/invites.schemas";
import type { createLabelIn, LabelOut, patchLabelIn } from "./features/labels/labels.schemas";
import type { createRoleIn, MemberOut, patchRoleIn, RoleOut, UserOut } from "./features/members/members.schemas";
import type { pushKeyOut, pushSubscriptionIn } from "./features/notifications/notifications.schemas";
import type { OrganizationOut, patchOrgIn } from "./features/organization/organization.schemas";
import type { ProposalOut } from "./features/proposals/proposals.schemas";
import type { ReplyEventPayload } from "./features/replies/replies.events";
import type { RetriedReply as RetriedReplyOut } from "./features/replies/replies.retry";
import type { SearchOut, SearchResultOut, searchQuery } from "./features/search/search.schemas";
import type { registerIn, SignupRequestOut } from "./features/signups/signups.schemas";
import type {
  addSpaceMemberIn,
  BoardOut,
  ColumnOut,
  createColumnIn,
  createSpaceIn,
  GitLinkOut,
  patchColumnIn,
  putGitLinkIn,
  SpaceMemberOut,
  SpaceOut,
} from "./features/spaces/spaces.schemas";
import type { createServiceAccountIn, patchServiceAccountIn, ServiceAccountOut } from "./features/staff/staff.schemas";
import type {
  createTaskIn,
  DeliverableOut,
  MyTaskOut,
  Priority as PriorityOut,
  patchTaskIn,
  TaskMessageOut,
  TaskOut,
} from "./features/tasks/tasks.schemas";
import type { VersionOut } from "./features/versions/versions.schemas";
import type { TokenPair as TokenPairOut } from "./http/schemas";

// Sessions, the install, invites.

/** What login, register, accept-invite and refresh answer. */
export type TokenPair = TokenPairOut;
/** `POST /public/setup`: a token pair, the organization and its owner. */
export type SetupAnswer = SetupOut;
/** `POST /public/setup`'s body. */
export type SetupBody = z.input<typeof setupIn>;
/** `GET /public/instance`. */
export type Instance = z.infer<ReturnType<typeof instanceOut>>;
/** `POST /auth/login`'s body. */
export type LoginBody = z.input<typeof loginIn>;
/** `POST /auth/register`'s body (a sign-up request). */
export type RegisterBody = z.input<typeof registerIn>;
/** `POST /auth/invite-info`: whose invite a token is. */
export type InviteInfo = z.infer<ReturnType<typeof inviteInfoOut>>;
/** `POST /auth/accept-invite`'s body. */
export type AcceptInviteBody = z.input<typeof acceptInviteIn>;
/** `POST /me/password`'s body. */
export type ChangePasswordBody = z.input<typeof changePasswordIn>;

// The organization and its people.

/** An account, as `GET /me` answers it. */
export type User = UserOut;
/** The organization (one per install). */
export type Organization = OrganizationOut;
/** A member of the organization: a person or a staff member. */
export type Member = MemberOut;
/** A role and its permissions. */
export type Role = RoleOut;
/** An invite (its token is never shown again). */
export type Invite = InviteOut;
/** An account made through open sign-ups, waiting for (or past) a person's decision. */
export type SignupRequest = SignupRequestOut;
/** One record of the audit log: who did what to what, when and from where. */
export type AuditEvent = AuditEventOut;
/** An action the audit log records (`member.removed`...). */
export type AuditAction = AuditActionOut;
/** `GET .../audit`'s filters and page. */
export interface AuditQuery {
  before?: string;
  actor_user_id?: string;
  action?: AuditAction;
}
/** `PATCH /organizations/{orgId}`'s body. */
export type OrganizationChanges = z.input<typeof patchOrgIn>;
/** `POST .../roles`' body. */
export type RoleBody = z.input<typeof createRoleIn>;
/** `PATCH .../roles/{roleId}`'s body. */
export type RoleChanges = z.input<typeof patchRoleIn>;
/** `POST .../invites`' body. */
export type InviteBody = z.input<typeof createInviteIn>;
/** `POST .../invites`: the invite, and its token (shown once: the server keeps only a hash). */
export interface CreatedInvite {
  invite: Invite;
  token: string;
}

// Spaces, their boards and tasks.

/** A space. */
export type Space = SpaceOut;
/** `POST .../spaces`' body. */
export type SpaceBody = z.input<typeof createSpaceIn>;
/** A member of a space (who sees a private one), and their role there. */
export type SpaceMember = SpaceMemberOut;
/** `POST .../spaces/{spaceId}/members`' body. */
export type SpaceMemberBody = z.input<typeof addSpaceMemberIn>;
/** The git repository a space's agent staff work on. */
export type GitLink = GitLinkOut;
/** `PUT .../spaces/{spaceId}/git-link`'s body. */
export type GitLinkBody = z.input<typeof putGitLinkIn>;
/** A space's board. */
export type Board = BoardOut;
/** A column of a board. */
export type Column = ColumnOut;
/** `POST .../board/columns`' body. */
export type ColumnBody = z.input<typeof createColumnIn>;
/** `PATCH .../board/columns/{columnId}`'s body. */
export type ColumnChanges = z.input<typeof patchColumnIn>;
/** A label of a space. */
export type Label = LabelOut;
/** `POST .../labels`' body. */
export type LabelBody = z.input<typeof createLabelIn>;
/** `PATCH .../labels/{labelId}`'s body. */
export type LabelChanges = z.input<typeof patchLabelIn>;
/** A task's priority. */
export type Priority = PriorityOut;
/** `GET .../spaces/{spaceId}/board`. */
export interface BoardAnswer {
  board: Board;
  columns: Column[];
}
/** A task. */
export type Task = TaskOut;
/** A task of `GET /me/tasks`: with its organization and the name of its space. */
export type MyTask = MyTaskOut;
/** A comment on a task. */
export type TaskMessage = TaskMessageOut;
/** A file linked to a task as its deliverable. */
export type Deliverable = DeliverableOut;
/** `POST .../tasks/{taskId}/deliverables/upload`: the file, stored in the Deliverables folder, and its link. */
export interface DeliverableUpload {
  node: FileNode;
  deliverable: Deliverable;
}
/** `POST .../tasks`' body. */
export type TaskBody = z.input<typeof createTaskIn>;
/** The fields of a task PATCH (the schema's input is `unknown`, read through a preprocess; this is its object). */
export type TaskChanges = z.output<typeof patchTaskIn>;

// Chat.

/** A chat room of a space. */
export type ChatRoom = RoomOut;
/** A chat message; a deleted one keeps its place with `content: ""` and `deleted_at` set. */
export type Message = MessageOut;
/** One person's (or staff member's) emoji on a message. */
export type Reaction = ReactionOut;
/** A link attached to a message (the server never fetches it). */
export type Attachment = AttachmentOut;
/** One page of `GET .../messages`, oldest first. */
export interface MessagePage {
  messages: Message[];
  reactions: Reaction[];
  attachments: Attachment[];
}
/** `POST .../messages` (and the `chat.message.created` event): the message with its attachments. */
export interface PostedMessage {
  message: Message;
  attachments: Attachment[];
}
/** `GET .../messages/{messageId}/replies`: a page of a thread's replies, oldest first, and its root. */
export interface ThreadPage extends MessagePage {
  root: { message: Message; reactions: Reaction[]; attachments: Attachment[] };
}
/** `POST .../chat-rooms/{roomId}/uploads`: the file stored, and the attachment to post for it. */
export interface ChatUpload {
  attachment: UploadedOut;
  node: NodeOut;
}
/** `POST .../chat-rooms`' body. */
export type RoomBody = z.input<typeof createRoomIn>;
/** `POST .../messages`' body. */
export type MessageBody = z.input<typeof postMessageIn>;
/** `PATCH .../messages/{messageId}`'s body. */
export type MessageEdit = z.input<typeof editMessageIn>;

// Read state, unread counts, the inbox and notification settings (contract §10).

/** `POST .../chat-rooms/{roomId}/read`'s body (and, with `chat_room_id`, the `chat.read` event). */
export type ReadBody = z.input<typeof readRoomIn>;
/** The payload of `chat.read`: the caller read a room up to a message, on another tab or device. */
export interface ReadEvent {
  chat_room_id: string;
  message_id: string;
}
/** One room with something unread, in `GET /me/unread`. */
export type RoomUnread = RoomUnreadOut;
/** `GET /me/unread`. */
export interface UnreadRooms {
  rooms: RoomUnread[];
}
/** What an inbox item is about. */
export type InboxItemKind = ItemKind;
/** One thing that needs the caller (and the payload of `inbox.item`). */
export type InboxItem = InboxItemOut;
/** `GET /me/inbox`: a page, newest first, and how many items are unread in all. */
export interface InboxPage {
  items: InboxItem[];
  unread: number;
}
/** `POST /me/inbox/read`'s body. */
export type InboxReadBody = z.input<typeof markReadIn>;
/** The payload of `inbox.read`: items read (on another tab or device, or by reading a room), or all of them. */
export type InboxReadEvent = InboxReadOut;
/** `GET|PUT /me/notifications`. */
export type NotificationSettings = NotificationSettingsOut;
/** `PUT /me/notifications`' body: the fields to change. */
export type NotificationChanges = z.input<typeof putNotificationsIn>;
/** `GET /public/push-key`: the VAPID key a browser subscribes with. */
export type PushKey = z.infer<ReturnType<typeof pushKeyOut>>;
/** `POST /me/push-subscriptions`' body: a browser's `PushSubscription.toJSON()`. */
export type PushSubscriptionBody = z.input<typeof pushSubscriptionIn>;

// Files and edit proposals.

/** A file or folder of a space's tree. */
export type FileNode = NodeOut;
/** A staff member's proposed new text for a file. */
export type Proposal = ProposalOut;
/** A kept version of a text file. */
export type FileVersion = VersionOut;
/** `POST .../files/folders`' body. */
export type FolderBody = z.input<typeof createFolderIn>;
/** `POST .../files/text`'s body. */
export type TextFileBody = z.input<typeof createTextIn>;
/** `PATCH .../files/{nodeId}`'s body: a rename, a move, or both. */
export type NodeChanges = z.input<typeof patchNodeIn>;

// Search.

/** One thing found: a message, a task, a task message or a file node, with its excerpt marked in HTML. */
export type SearchResult = SearchResultOut;
/** `GET /organizations/{orgId}/search`: the results, best first. */
export type SearchAnswer = SearchOut;
/** `GET /organizations/{orgId}/search`'s query parameters, as sent (`types` comma-separated). */
export type SearchParams = z.input<typeof searchQuery>;

// AI staff, their activity and provider keys.

/** An AI staff member's account. */
export type ServiceAccount = ServiceAccountOut;
/** `POST .../service-accounts`: the account, and its `sa_` token (shown once). */
export interface CreatedServiceAccount {
  service_account: ServiceAccount;
  token: string;
}
/** `POST .../service-accounts`' body. */
export type ServiceAccountBody = z.input<typeof createServiceAccountIn>;
/** `PATCH .../service-accounts/{id}`'s body. */
export type ServiceAccountChanges = z.input<typeof patchServiceAccountIn>;
/** The payload of the `ai.reply.started`, `.finished` and `.failed` live events. */
export type ReplyEvent = ReplyEventPayload;
/** A failed staff reply asked again: the reply job, and the failure reply its answer will replace. */
export type RetriedReply = RetriedReplyOut;
/** What a staff member did for one reply. */
export type ActivityEntry = z.infer<ReturnType<typeof activityOut>>;
/** One tool a staff member called while answering. */
export type ToolCall = z.infer<ReturnType<typeof toolCallOut>>;
/** A provider key as shown: whether it is set, and its last characters. */
export type Integration = IntegrationOut;
/** A provider staff answer through. */
export type Provider = ProviderName;
/** What testing a provider key found: accepted, or what the provider answered. */
export type KeyCheck = KeyCheckOut;

// Automations.

/** An automation. */
export type Automation = AutomationOut;
/** What an automation does. */
export type AutomationKind = (typeof AUTOMATION_KINDS)[number];
/** Where an automation stands in its review. */
export type AutomationStatus = AutomationStatusOut;
/** `POST .../automations`' body. */
export type AutomationBody = z.input<typeof createAutomationIn>;
/** `PATCH .../automations/{id}`'s body. */
export type AutomationChanges = z.input<typeof patchAutomationIn>;
/** `POST .../automations`: the automation, and a webhook's secret (`whsec_…`, answered this once). */
export interface CreatedAutomation {
  automation: Automation;
  webhook_secret?: string;
}
/** One run of an automation: what started it, how it ended, its error and output. */
export type AutomationRun = RunOut;
