import { sharedDatabase, type Db } from '@/db/client';
import { registerCallPlacer } from '@/server/channels/calls';
import { twilioCallPlacer } from '@/server/messaging/voice-outbound';

/*
 * Composition (entry floor): place_call's approved dispatches are dialled through Twilio's Calls
 * API (server/messaging/voice-outbound.ts), which reads Twilio's configuration when it dials, so
 * a deployment without Twilio answers `no provider configured for voice` and calls nobody.
 * Imported by server/twilio-runtime.ts (every serving process loads it through task-hooks.ts).
 */
const db = (): Db => sharedDatabase().db;

registerCallPlacer(twilioCallPlacer(db));
