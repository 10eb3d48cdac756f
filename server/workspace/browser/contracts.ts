import { z } from 'zod';

/** Spec document 2, Workspace endpoints: watch, profile, snapshots, cleanup. */

export const WatchQuery = z.object({
  taskId: z
    .string({ message: 'is required' })
    .min(1, 'is required')
    .max(100)
    .regex(/^[A-Za-z0-9_-]+$/, 'must be a task id'),
});

export const WatchResponse = z.object({
  ok: z.literal(true),
  available: z.boolean(),
  reason: z.literal('watch_unavailable').optional(),
  taskId: z.string(),
  capturedAt: z.string().nullable(),
  width: z.number().int().nullable(),
  height: z.number().int().nullable(),
  pngBase64: z.string().nullable(),
  sequence: z.number().int().nullable(),
});

export const ProfileResponse = z.object({
  ok: z.literal(true),
  profile: z
    .object({
      lastActiveAt: z.string(),
      updatedAt: z.string(),
      peakMemoryBytes: z.number().nullable(),
      avgMemoryBytes: z.number().nullable(),
      memoryLimitBytes: z.number().nullable(),
      currentDiskBytes: z.number().nullable(),
      diskQuotaBytes: z.number().nullable(),
      avgCpuLoadAvg: z.number().nullable(),
      totalActiveMinutes: z.number().int(),
      topMcpSlugs: z.array(z.string()),
      running: z.boolean(),
    })
    .nullable(),
});

export const SnapshotsQuery = z.object({
  limit: z.coerce.number().int().min(1, 'must be at least 1').max(288, 'must be at most 288').default(48),
});

const Snapshot = z.object({
  timestamp: z.string(),
  memoryUsedBytes: z.number().nullable(),
  memoryTotalBytes: z.number().nullable(),
  diskUsedBytes: z.number().nullable(),
  diskQuotaBytes: z.number().nullable(),
  cpuLoadAvg: z.number().nullable(),
  activeMcpSlugs: z.array(z.string()),
  containerUptime: z.number().nullable(),
});
export const SnapshotsResponse = z.object({ ok: z.literal(true), snapshots: z.array(Snapshot) });

export const CleanupBody = z.object({ scope: z.enum(['cache', 'sites'], { message: "must be 'cache' or 'sites'" }).default('cache') }).default({ scope: 'cache' });
export const CleanupResponse = z.object({ ok: z.literal(true), scope: z.enum(['cache', 'sites']) });
