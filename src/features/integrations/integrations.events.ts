/** The events of provider keys: the server's own (the audit log records them). Never the key, nor its hint. */

declare module "../../core/events" {
  interface EventPayloads {
    /** A provider's key was stored; `replaced` when one was stored before. */
    "integration.key.set": { provider: string; replaced: boolean };
    /** A provider's stored key was removed. */
    "integration.key.cleared": { provider: string };
  }
}

export {};
