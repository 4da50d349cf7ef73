/**
 * The chat feature's calls: a space's rooms, their messages (pages, posting, editing, deleting), threads,
 * reactions and the composer's uploads.
 */
import type {
  ChatRoom,
  ChatUpload,
  Message,
  MessageBody,
  MessagePage,
  PostedMessage,
  Reaction,
  RetriedReply,
  ThreadPage,
} from "../../../../src/api-types";
import { api, type Upload, uploadForm } from "../../lib/api";

const roomsPath = (base: string, spaceId: string) => `${base}/spaces/${spaceId}/chat-rooms`;
const messagesPath = (base: string, spaceId: string, roomId: string) =>
  `${roomsPath(base, spaceId)}/${roomId}/messages`;

/** The space's rooms, by creation. */
export async function listRooms(base: string, spaceId: string): Promise<ChatRoom[]> {
  return (await api<{ chat_rooms: ChatRoom[] }>("GET", roomsPath(base, spaceId))).chat_rooms;
}

/** Creates a room. */
export function createRoom(base: string, spaceId: string, name: string): Promise<ChatRoom> {
  return api<ChatRoom>("POST", roomsPath(base, spaceId), { name });
}

/** Deletes a room with its messages, reactions and attachments, for good. */
export async function deleteRoom(base: string, spaceId: string, roomId: string): Promise<void> {
  await api("DELETE", `${roomsPath(base, spaceId)}/${roomId}`);
}

/** A page's query string: `limit=50&before=…`. */
const pageQuery = (page: { limit: number; before?: string }) =>
  `limit=${page.limit}${page.before ? `&before=${encodeURIComponent(page.before)}` : ""}`;

/** The newest `limit` messages of a room before `before` (a `created_at`), oldest first. */
export function listMessages(
  base: string,
  spaceId: string,
  roomId: string,
  page: { limit: number; before?: string },
): Promise<MessagePage> {
  return api<MessagePage>("GET", `${messagesPath(base, spaceId, roomId)}?${pageQuery(page)}`);
}

/** The newest `limit` replies of a message's thread (a reply's: the thread it is in), oldest first, and its root. */
export function listReplies(
  base: string,
  spaceId: string,
  roomId: string,
  messageId: string,
  page: { limit: number; before?: string },
): Promise<ThreadPage> {
  return api<ThreadPage>("GET", `${messagesPath(base, spaceId, roomId)}/${messageId}/replies?${pageQuery(page)}`);
}

/** Uploads a file of the composer into the space's Attachments folder; answers the attachment to post. */
export function uploadToRoom(
  base: string,
  spaceId: string,
  roomId: string,
  file: File,
  onProgress: (fraction: number) => void,
): Upload<ChatUpload> {
  const form = new FormData();
  form.append("file", file, file.name);
  return uploadForm<ChatUpload>(`${roomsPath(base, spaceId)}/${roomId}/uploads`, form, onProgress);
}

/** Posts a message, with the links it attaches. */
export function postMessage(base: string, spaceId: string, roomId: string, body: MessageBody): Promise<PostedMessage> {
  return api<PostedMessage>("POST", messagesPath(base, spaceId, roomId), body);
}

/** Replaces one's own message's text. */
export function editMessage(
  base: string,
  spaceId: string,
  roomId: string,
  messageId: string,
  content: string,
): Promise<Message> {
  return api<Message>("PATCH", `${messagesPath(base, spaceId, roomId)}/${messageId}`, { content });
}

/** Deletes a message: it keeps its place, empty, marked deleted. */
export async function deleteMessage(base: string, spaceId: string, roomId: string, messageId: string): Promise<void> {
  await api("DELETE", `${messagesPath(base, spaceId, roomId)}/${messageId}`);
}

/** Adds the caller's reaction (adding it again answers the same one). */
export function addReaction(
  base: string,
  spaceId: string,
  roomId: string,
  messageId: string,
  emoji: string,
): Promise<Reaction> {
  return api<Reaction>("POST", `${messagesPath(base, spaceId, roomId)}/${messageId}/reactions`, { emoji });
}

/** Takes the caller's reaction back. */
export async function removeReaction(
  base: string,
  spaceId: string,
  roomId: string,
  messageId: string,
  emoji: string,
): Promise<void> {
  const path = `${messagesPath(base, spaceId, roomId)}/${messageId}/reactions`;
  await api("DELETE", `${path}?emoji=${encodeURIComponent(emoji)}`);
}

/** Asks a staff member again, from its failure reply `messageId`: its answer will replace that message's text. */
export function retryReply(base: string, spaceId: string, roomId: string, messageId: string): Promise<RetriedReply> {
  return api<RetriedReply>("POST", `${messagesPath(base, spaceId, roomId)}/${messageId}/retry`);
}
