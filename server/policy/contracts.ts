import { z } from 'zod';

export const SWITCHES = ['workspaceCli', 'browserAutomation', 'workspaceHandoff', 'mcpServers'] as const;
export type Switch = (typeof SWITCHES)[number];
export const ACTION_TYPES = [
  'email_as_user',
  'email_as_assistant',
  'messaging',
  'voice_call_as_assistant',
  'voice_call_as_user',
  'calendar',
  'files',
  'drive',
  'contacts',
  'third_party_skills',
  'website',
] as const;

const OnOff = z.enum(['on', 'off']).nullable();
/** A bare origin such as example.org: no scheme, path or port. */
const Origin = z
  .string()
  .trim()
  .toLowerCase()
  .regex(/^(?=.{1,253}$)([a-z0-9-]{1,63}\.)+[a-z]{2,63}$/, 'must be a bare origin such as example.org, not a URL');

/** A patch of capability switches: each `on`, `off` or null (inherit) with its `<name>Locked`, and the handoff domains. */
export const switchesPatch = (switches: readonly string[]) =>
  z
    .object({
      ...Object.fromEntries(switches.flatMap((s) => [[s, OnOff.optional()], [`${s}Locked`, z.boolean().optional()]])),
      workspaceHandoffDomains: z.object({ allowlist: z.array(Origin).max(500).default([]), blocklist: z.array(Origin).max(500).default([]) }).optional(),
    })
    .strict();

export const CapabilitiesPatch = switchesPatch(SWITCHES);

const Cell = z.object({ mode: z.enum(['auto', 'time-boxed', 'manual']).nullable(), timeBoxedWindowMin: z.number({ message: 'must be a number of minutes' }).min(1 / 60, 'must be at least one second (1/60 of a minute)').max(10_080).nullable().default(null) });
export const MatrixPatch = z.object(Object.fromEntries(ACTION_TYPES.map((a) => [a, Cell.nullable().optional()]))).strict();

export const PolicyPatchBody = z.object({
  capabilities: CapabilitiesPatch.optional(),
  approvalSettings: z.object({ matrix: MatrixPatch.nullable() }).optional(),
});
export const PresetBody = z.object({ preset: z.literal('restricted', { message: "must be 'restricted'" }) });

export const PolicyResponse = z.object({
  ok: z.literal(true),
  settings: z.object({
    skills: z.record(z.string(), z.unknown()),
    workflows: z.record(z.string(), z.unknown()),
    assistants: z.record(z.string(), z.unknown()),
    store: z.record(z.string(), z.unknown()),
    users: z.record(z.string(), z.unknown()),
    capabilities: z.record(z.string(), z.unknown()),
    approvalSettings: z.object({
      matrix: z.record(z.string(), z.object({ mode: z.string().nullable(), timeBoxedWindowMin: z.number().nullable() })).nullable(),
      organizationLocked: z.record(z.string(), z.object({ mode: z.string().nullable(), timeBoxedWindowMin: z.number().nullable() })),
    }),
  }),
  preset: z.string().nullable(),
  effective: z.object({
    capabilities: z.record(z.string(), z.enum(['on', 'off'])),
    workspaceHandoffDomains: z.object({ allowlist: z.array(z.string()).nullable(), blocklist: z.array(z.string()) }),
  }),
});
