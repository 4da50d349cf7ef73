/** The events of the install itself: the server's own (the audit log records them). */

declare module "../../core/events" {
  interface EventPayloads {
    /** `tandem backup` wrote a backup of this database to `file`. */
    "backup.created": { file: string; bytes: number };
    /** `tandem restore` made this database from the backup `file`. */
    "backup.restored": { file: string; bytes: number };
  }
}

export {};
