/** A person's own events (contract §10): sent `to` them alone, on their live-events sockets. */
import type { InboxItemOut } from "./inbox.schemas";

/** The items read: those ids (each was unread until then), or every item of the organization. */
export type InboxReadOut = { ids: string[] } | { all: true };

declare module "../../core/events" {
  interface EventPayloads {
    /** The person read a room up to a message (on another tab or device). */
    "chat.read": { chat_room_id: string; message_id: string };
    /** A new item in the person's inbox. */
    "inbox.item": InboxItemOut;
    /** Items of the person's inbox were read (on another tab or device, or by reading a room): which, or all. */
    "inbox.read": InboxReadOut;
  }
}
