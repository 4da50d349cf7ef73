/** The events of people. */

declare module "../../core/events" {
  interface EventPayloads {
    /**
     * Not sent to clients: an account was deleted (a staff member's). Rows of any number of spaces lost their
     * author without an event of their own; whatever was derived from them is stale.
     */
    "user.deleted": { user_id: string };
  }
}

export {};
