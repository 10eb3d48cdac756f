import { inArray } from 'drizzle-orm';
import { z } from 'zod';
import type { Tx } from '@/db/client';
import { scimUserExtensions, type ScimEnterprise } from '@/db/schema';
import { scimBadRequest } from './errors';
import { ENTERPRISE_ALIAS, ENTERPRISE_SCHEMA, USER_SCHEMA } from './schema';

/*
 * The enterprise User extension (RFC 7643 §4.3): Entra ID sends it in every POST and PATCH
 * (department, employeeNumber, costCenter, organization, division, manager). It is stored per
 * user, shown under its URN, published in /Schemas and /ResourceTypes, and filterable like any
 * attribute (Entra can match users on employeeNumber). Inside Steward's SCIM code the view keeps
 * it under ENTERPRISE_ALIAS, so paths, filters and selections work on one shape; wireUser() puts
 * it under the URN when the user is shown.
 */

const Text = z.string({ message: 'must be a string' }).max(500).nullish();
/** Entra sends the manager as `{value}`, and in PATCH sometimes as the bare id. */
const Manager = z
  .union([z.string().max(500), z.object({ value: z.string().max(500).nullish(), displayName: z.string().max(500).nullish() }).passthrough()])
  .nullish()
  .transform((m) => {
    if (m === null || m === undefined) return null;
    const value = typeof m === 'string' ? m : (m.value ?? null);
    if (!value) return null;
    return { value, ...(typeof m === 'object' && m.displayName ? { displayName: m.displayName } : {}) };
  });
const Enterprise = z
  .object({ employeeNumber: Text, costCenter: Text, organization: Text, division: Text, department: Text, manager: Manager })
  .passthrough();

/** The extension as stored: only the attributes it defines, empty ones left out. */
export function readEnterprise(raw: unknown, what = ENTERPRISE_SCHEMA): ScimEnterprise {
  if (raw === undefined || raw === null) return {};
  const parsed = Enterprise.safeParse(raw);
  if (!parsed.success) throw scimBadRequest('invalidValue', `${what}: ${parsed.error.issues.map((i) => `${i.path.join('.') || 'value'} ${i.message}`).join('; ')}`);
  const out: ScimEnterprise = {};
  for (const k of ['employeeNumber', 'costCenter', 'organization', 'division', 'department'] as const) {
    const v = parsed.data[k];
    if (typeof v === 'string' && v.trim() !== '') out[k] = v;
  }
  if (parsed.data.manager) out.manager = parsed.data.manager;
  return out;
}

const isEmpty = (e: ScimEnterprise) => Object.keys(e).length === 0;

/** Stored extensions of these users, by user id. */
export async function enterpriseOf(tx: Tx, userIds: string[]): Promise<Map<string, ScimEnterprise>> {
  if (!userIds.length) return new Map();
  const rows = await tx.select().from(scimUserExtensions).where(inArray(scimUserExtensions.userId, userIds));
  return new Map(rows.map((r) => [r.userId, r.enterprise]));
}

export async function saveEnterprise(tx: Tx, user: { id: string; accountId: string }, enterprise: ScimEnterprise): Promise<void> {
  await tx
    .insert(scimUserExtensions)
    .values({ userId: user.id, accountId: user.accountId, enterprise })
    .onConflictDoUpdate({ target: scimUserExtensions.userId, set: { enterprise, updatedAt: new Date() } });
}

/** The view's extension, under the alias, when there is one. */
export const enterpriseView = (e: ScimEnterprise | undefined) => (e && !isEmpty(e) ? { [ENTERPRISE_ALIAS]: e } : {});

/** A user as SCIM clients read it: the extension under its URN, and its URN among `schemas`. */
export function wireUser<T extends Record<string, unknown>>(view: T): Record<string, unknown> {
  const { [ENTERPRISE_ALIAS]: ext, ...rest } = view;
  if (!ext || (typeof ext === 'object' && isEmpty(ext as ScimEnterprise))) return rest;
  return { ...rest, schemas: [USER_SCHEMA, ENTERPRISE_SCHEMA], [ENTERPRISE_SCHEMA]: ext };
}
