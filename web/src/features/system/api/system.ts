import { z } from 'zod';
import { api } from '../../../lib/api-client';

/** GET /system/rebuilds (admins): projections and their blue-green rebuilds. */
const RebuildSchema = z.object({
  projection: z.string(),
  version: z.number(),
  generation: z.number(),
  state: z.enum(['building', 'switched', 'failed']),
  processed: z.number(),
  position: z.number(),
  head: z.number(),
  eventsPerSecond: z.number(),
  secondsLeft: z.number().nullable(),
  startedAt: z.string(),
  finishedAt: z.string().nullable(),
  error: z.string().optional(),
});
export const SystemSchema = z.object({
  head: z.number(),
  position: z.number(),
  projections: z.array(z.object({ name: z.string(), version: z.number(), generation: z.number(), position: z.number() })),
  rebuilds: z.array(RebuildSchema),
});
export type SystemStatus = z.infer<typeof SystemSchema>;

/** GET /system/job-failures (admins): the company's jobs whose last attempt failed, newest first. */
export const JobFailuresSchema = z.object({
  queue: z.string(),
  failures: z.array(z.object({
    id: z.string(),
    type: z.string(),
    attempts: z.number(),
    error: z.string(),
    failedAt: z.string(),
    causationId: z.string(),
  })),
});
export type JobFailures = z.infer<typeof JobFailuresSchema>;

export const systemApi = {
  rebuilds: async () => SystemSchema.parse((await api.get('/system/rebuilds')).data),
  jobFailures: async () => JobFailuresSchema.parse((await api.get('/system/job-failures')).data),
};
