import type { AssistantRow } from '@/db/schema';

/*
 * Who the assistant is, as a realtime model is told at the start of a live conversation (a phone
 * call's, the hosted app's): its name, personality and background as its owner set them, and the
 * owner's persona lines. Only Steward writes these.
 */
export function aboutYou(assistant: Pick<AssistantRow, 'name' | 'personality' | 'backstory'>, persona: string[]): string[] {
  return [
    `You are ${assistant.name}, an AI assistant.`,
    ...(assistant.personality?.trim() ? [`Your personality: ${assistant.personality.trim()}`] : []),
    ...(assistant.backstory?.trim() ? [`Your background: ${assistant.backstory.trim()}`] : []),
    ...persona,
  ];
}
