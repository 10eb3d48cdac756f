import type { AssistantRow, ChatMessageRow, ChatRow, UserRow } from '@/db/schema';

export type ChatOwner = Pick<UserRow, 'id' | 'email' | 'firstName' | 'lastName' | 'avatarUrl'>;
export type ChatAssistant = Pick<AssistantRow, 'id' | 'name' | 'email'>;

/** A chat as the API shows it (spec document 2, Chat): its owner and assistant spelled out. */
export function presentChat(c: ChatRow, owner: ChatOwner, assistant: ChatAssistant | null) {
  return {
    id: c.id,
    title: c.title,
    status: c.status,
    platform: c.platform,
    user: c.userId,
    owner: { id: owner.id, email: owner.email, firstName: owner.firstName, lastName: owner.lastName, avatar: owner.avatarUrl },
    assistant: c.assistantId,
    // A released assistant's chats stay readable; its name and address are then unknown.
    assistantInfo: { id: c.assistantId, name: assistant?.name ?? null, email: assistant?.email ?? null },
    participants: c.participants,
    messageCount: c.messageCount,
    lastMessageAt: c.lastMessageAt?.toISOString() ?? null,
    createdForTaskId: c.createdForTaskId,
    tags: c.tags,
    metadata: c.metadata,
    modelTier: c.modelTier,
    effort: c.effort,
    createdAt: c.createdAt.toISOString(),
    updatedAt: c.updatedAt.toISOString(),
  };
}

/** A chat message (spec document 2, Chat message); `delivery` is read-only. */
export function presentChatMessage(m: ChatMessageRow) {
  return {
    id: m.id,
    referenceId: m.referenceId,
    role: m.role,
    from: m.from,
    to: m.to,
    cc: m.cc,
    subject: m.subject,
    platform: m.platform,
    content: m.content,
    files: m.files,
    timestamp: m.createdAt.toISOString(),
    metadata: m.metadata,
    delivery: { state: m.deliveryState, taskId: m.deliveryTaskId, cartId: m.deliveryCartId },
  };
}
