import { z } from 'zod';
import { MAX_DEFER_MINUTES, MAX_NOTE } from '../handoffs/contracts';

/*
 * The live view's messages. The person's input goes to the browser and nowhere else: these
 * messages are never logged, stored or shown to the assistant.
 */

const Coord = z.number().finite().min(-100_000).max(100_000);
const Modifiers = z.number().int().min(0).max(15).default(0);

export const ClientMessage = z.discriminatedUnion('type', [
  z.object({
    type: z.literal('mouse'),
    action: z.enum(['mousePressed', 'mouseReleased', 'mouseMoved', 'mouseWheel']),
    x: Coord,
    y: Coord,
    button: z.enum(['none', 'left', 'middle', 'right']).default('none'),
    clickCount: z.number().int().min(0).max(3).default(0),
    deltaX: Coord.default(0),
    deltaY: Coord.default(0),
    modifiers: Modifiers,
  }),
  z.object({
    type: z.literal('key'),
    action: z.enum(['keyDown', 'keyUp']),
    key: z.string().min(1).max(40),
    code: z.string().max(40).default(''),
    keyCode: z.number().int().min(0).max(255).default(0),
    modifiers: Modifiers,
  }),
  /** Text pasted or composed (IME): inserted as it is. */
  z.object({ type: z.literal('text'), text: z.string().min(1).max(10_000) }),
  z.object({ type: z.literal('complete') }),
  z.object({ type: z.literal('decline') }),
  z.object({ type: z.literal('defer'), message: z.string().trim().min(1).max(MAX_NOTE), deferMinutes: z.number().int().min(1).max(MAX_DEFER_MINUTES).optional() }),
]);
export type ClientMessage = z.infer<typeof ClientMessage>;

export type ServerMessage =
  | { type: 'hello'; handoff: { id: string; prompt: string; actionType: string; targetUrl: string | null; taskId: string | null; expiresAt: string } }
  | { type: 'status'; browser: 'starting' | 'running' | 'unavailable' }
  | { type: 'frame'; data: string; width: number; height: number }
  | { type: 'url'; url: string }
  | { type: 'closed'; status: string; closeReason: string | null }
  | { type: 'error'; error: string };
