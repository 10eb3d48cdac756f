import { z } from 'zod';
import { chatDeliveryStates, chatEfforts, chatMessageRoles, chatStatuses } from '@/db/schema/chats';
import { chatPlatforms } from '@/db/schema/channel-names';
import { modelTiers } from '@/db/schema/agent';
import { PageFields, PageQuery } from '@/server/http/pagination';

/* Requests and answers of the Chats API (spec document 2: Chat, Chat message, Chats). */

const Id = z.string().trim().min(1, 'is required').max(64);
const Address = z.string().trim().min(1).max(320);
const Recipients = z.union([Address, z.array(Address).max(100)]).transform((v) => (Array.isArray(v) ? v : [v]));

export const ChatParams = z.object({ chatId: Id });

export const ListChatsQuery = PageQuery.extend({
  status: z.enum(chatStatuses).optional(),
  assistantId: Id.optional(),
  q: z.string().trim().min(1).max(200).optional(),
  platform: z
    .string()
    .trim()
    .transform((v) => v.split(',').map((p) => p.trim()).filter(Boolean))
    .pipe(z.array(z.enum(chatPlatforms, { message: `each platform must be one of ${chatPlatforms.join(', ')}` })).min(1))
    .optional(),
  userEmail: z.email().max(320).optional().describe('An account key without X-User-Email: only this user’s chats'),
});

export const CreateChatBody = z.object({
  assistantId: Id,
  title: z.string().trim().max(500).optional(),
  metadata: z.record(z.string(), z.unknown()).optional(),
  tags: z.array(z.string().trim().min(1).max(100)).max(50).optional(),
  modelTier: z.enum(modelTiers, { message: `must be one of ${modelTiers.join(', ')}` }).optional(),
  effort: z.enum(chatEfforts).optional(),
});

export const ChatFileRef = z.object({
  fileId: z.string().regex(/^[0-9a-f]{24}$/, 'must be 24 hex characters'),
  filename: z.string().max(1_000).optional(),
  mimeType: z.string().max(255).optional(),
});

export const AddMessageBody = z.object({
  content: z.string({ message: 'is required' }).min(1, 'is required').max(100_000),
  role: z.enum(['user', 'assistant', 'system']).optional().describe('Default `user`'),
  from: Address.optional(),
  to: Recipients.optional(),
  cc: Recipients.optional(),
  subject: z.string().max(998).optional(),
  platform: z.enum(chatPlatforms).optional(),
  referenceId: z.string().max(255).optional(),
  files: z.array(ChatFileRef).max(20).optional(),
  metadata: z.record(z.string(), z.unknown()).optional(),
});

export const MessagesQuery = PageQuery;

const Person = z.object({ id: z.string(), email: z.string(), firstName: z.string().nullable(), lastName: z.string().nullable(), avatar: z.string().nullable() });

export const Chat = z.object({
  id: z.string(),
  title: z.string().nullable(),
  status: z.enum(chatStatuses),
  platform: z.enum(chatPlatforms),
  user: z.string(),
  owner: Person,
  assistant: z.string(),
  assistantInfo: z.object({ id: z.string(), name: z.string().nullable(), email: z.string().nullable() }),
  participants: z.array(z.object({ type: z.enum(['phone', 'email']), value: z.string() })),
  messageCount: z.number().int(),
  lastMessageAt: z.string().nullable(),
  createdForTaskId: z.string().nullable(),
  tags: z.array(z.string()),
  metadata: z.record(z.string(), z.unknown()),
  modelTier: z.enum(modelTiers),
  effort: z.enum(chatEfforts).nullable(),
  createdAt: z.string(),
  updatedAt: z.string(),
});

export const ChatMessage = z.object({
  id: z.string(),
  referenceId: z.string().nullable(),
  role: z.enum(chatMessageRoles),
  from: z.string().nullable(),
  to: z.array(z.string()),
  cc: z.array(z.string()),
  subject: z.string().nullable(),
  platform: z.enum(chatPlatforms),
  content: z.string(),
  files: z.array(z.object({ fileId: z.string(), filename: z.string().nullable().optional(), mimeType: z.string().nullable().optional() })),
  timestamp: z.string(),
  metadata: z.record(z.string(), z.unknown()),
  delivery: z.object({ state: z.enum(chatDeliveryStates), taskId: z.string().nullable(), cartId: z.string().nullable() }).describe('Read-only'),
});

export const ChatEnvelope = z.object({ ok: z.literal(true), chat: Chat });
export const ChatList = z.object({ ok: z.literal(true), chats: z.array(Chat), ...PageFields });
export const DeletedChat = z.object({ ok: z.literal(true), chat: z.object({ id: z.string(), deleted: z.literal(true), message: z.string() }) });
export const MessageEnvelope = z.object({ ok: z.literal(true), message: ChatMessage });
export const MessageList = z.object({ ok: z.literal(true), messages: z.array(ChatMessage), ...PageFields });
