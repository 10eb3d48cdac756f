import type { HandoffRow } from '@/db/schema';
import type { z } from 'zod';
import type { Handoff } from './contracts';

export const presentHandoff = (h: HandoffRow): z.input<typeof Handoff> => ({
  id: h.id,
  taskId: h.taskId,
  actionType: h.actionType,
  prompt: h.prompt,
  targetUrl: h.targetUrl,
  screenshotUrl: h.screenshotUrl,
  status: h.status,
  closeReason: h.closeReason,
  urlSource: h.urlSource,
  expiresAt: h.expiresAt.toISOString(),
  createdAt: h.createdAt.toISOString(),
});
