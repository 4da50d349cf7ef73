/** The events of the job table. */

declare module "../core/events" {
  interface EventPayloads {
    /** Not sent to clients: a job of `kind` was queued; the runner looks at the queue. */
    "job.queued": { kind: string };
  }
}

export {};
