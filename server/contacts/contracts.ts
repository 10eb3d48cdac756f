import { z } from 'zod';
import { Email } from '@/server/user-record/contracts';
import { PageFields, PageQuery } from '@/server/http/pagination';

const Str = (max = 500) => z.string().trim().max(max);
const Address = z.object({ address: Email, type: z.enum(['work', 'personal', 'other']).default('other'), primary: z.boolean().default(false), source: z.string().max(100).nullable().default(null) });
const Phone = z.object({ number: Str(50).min(3), type: z.enum(['work', 'mobile', 'home', 'other']).default('mobile'), primary: z.boolean().default(false), source: z.string().max(100).nullable().default(null) });
const Company = z.object({ id: Str(100).nullable().default(null), name: Str(300), slug: Str(300).nullable().default(null), domain: Str(300).nullable().default(null) });
const SourceTypes = ['manual', 'teammate', 'teammate_archived', 'imported', 'emailimport', 'crm', 'atshris', 'voice', 'onboarding', 'calendar', 'other'] as const;
const Source = z.object({ type: z.enum(SourceTypes).nullable(), userId: z.string().nullable().default(null) });
const ExternalId = z.object({ integration: Str(100), externalId: Str(300), syncedAt: z.string().nullable().default(null) });
const Social = z.object({ linkedIn: Str().nullable().optional(), x: Str().nullable().optional(), other: Str().nullable().optional() });
const PostalAddress = z.object({ line1: Str().optional(), line2: Str().optional(), city: Str().optional(), state: Str().optional(), zip: Str(50).optional(), country: Str(100).optional() });
const IsoDate = z.iso.datetime({ offset: true }).nullable();

const editable = {
  name: Str().nullable(),
  preferredName: Str().nullable(),
  phones: z.array(Phone).max(50),
  emails: z.array(Address).max(50),
  company: Company.nullable(),
  title: Str().nullable(),
  timezone: Str(100).nullable(),
  properties: z.record(z.string(), z.unknown()),
  scope: z.enum(['user', 'team']),
  team: z.string().nullable(),
  tags: z.array(Str(100)).max(100),
  priority: z.number().int(),
  inheritCompanyPriority: z.boolean(),
};
type Opt<T extends Record<string, z.ZodType>> = { [K in keyof T]: z.ZodOptional<T[K]> };
const optional = <T extends Record<string, z.ZodType>>(shape: T) =>
  Object.fromEntries(Object.entries(shape).map(([k, v]) => [k, v.optional()])) as Opt<T>;

export const CreateContactBody = z.object({
  email: Email,
  ...optional(editable),
  consumerEmail: Email.optional(),
  source: Source.optional(),
  externalIds: z.array(ExternalId).max(50).optional(),
});

export const UpdateContactBody = z.object({
  ...optional(editable),
  status: Str(50).optional(),
  website: Str().nullable().optional(),
  bookingLink: Str().nullable().optional(),
  introducedBy: Str().nullable().optional(),
  social: Social.optional(),
  address: PostalAddress.optional(),
  lastContactedAt: IsoDate.optional(),
  enrichedAt: IsoDate.optional(),
});

export const ListContactsQuery = PageQuery.extend({
  userId: z.string().optional(),
  status: z.string().max(50).optional(),
  search: z.string().max(300).optional(),
  q: z.string().max(300).optional(),
  scope: z.enum(['user', 'team']).optional(),
  sourceType: z.enum(SourceTypes).optional(),
  tags: z.string().max(2000).optional(),
});

export const BulkImportRow = z.object({
  email: z.string().optional(),
  name: Str().nullable().optional(),
  preferredName: Str().nullable().optional(),
  phone: Str(50).optional(),
  phones: z.array(Phone).max(50).optional(),
  company: Company.nullable().optional(),
  title: Str().nullable().optional(),
  timezone: Str(100).nullable().optional(),
  emails: z.array(Address).max(50).optional(),
  properties: z.record(z.string(), z.unknown()).optional(),
  tags: z.array(Str(100)).max(100).optional(),
});
export const BulkImportBody = z.object({ contacts: z.array(BulkImportRow).min(1).max(1000, 'at most 1,000 contacts per call') });
export const MergeBody = z.object({ mergeContactId: z.string().min(1), preferredEmail: Email.optional() });

const Relationship = z.object({ id: z.string(), type: z.string(), contact: z.object({ id: z.string(), name: z.string().nullable(), email: z.string() }), createdAt: z.string() });
export const ContactResponse = z.object({
  id: z.string(),
  user: z.string(),
  name: z.string().nullable(),
  preferredName: z.string().nullable(),
  email: z.string(),
  emails: z.array(z.record(z.string(), z.unknown())),
  phones: z.array(z.record(z.string(), z.unknown())),
  iMessageCapable: z.boolean().nullable(),
  company: z.record(z.string(), z.unknown()).nullable(),
  title: z.string().nullable(),
  timezone: z.string().nullable(),
  tzOffset: z.string().nullable(),
  photoUrl: z.string().nullable(),
  website: z.string().nullable(),
  bookingLink: z.string().nullable(),
  social: z.record(z.string(), z.unknown()),
  address: z.record(z.string(), z.unknown()),
  enrichedAt: z.string().nullable(),
  lastContactedAt: z.string().nullable(),
  source: z.record(z.string(), z.unknown()).nullable(),
  externalIds: z.array(z.record(z.string(), z.unknown())),
  properties: z.record(z.string(), z.unknown()),
  priority: z.number(),
  inheritCompanyPriority: z.boolean(),
  tags: z.array(z.string()),
  introducedBy: z.string().nullable(),
  scope: z.enum(['user', 'team']),
  team: z.string().nullable(),
  status: z.string(),
  consumer: z.object({ id: z.string(), name: z.string().nullable(), email: z.string() }).nullable(),
  assistant: z.record(z.string(), z.unknown()).nullable(),
  createdAt: z.string(),
  updatedAt: z.string(),
  outgoingRelationships: z.array(Relationship).optional(),
  incomingRelationships: z.array(Relationship).optional(),
});
export const ContactEnvelope = z.object({ ok: z.literal(true), contact: ContactResponse });
export const ListContactsResponse = z.object({ ok: z.literal(true), contacts: z.array(ContactResponse), ...PageFields });
export const DeletedContactResponse = z.object({ ok: z.literal(true), contact: z.object({ id: z.string(), deleted: z.literal(true), message: z.string() }) });
export const BulkImportResponse = z.object({
  ok: z.literal(true),
  bulkImport: z.object({
    success: z.boolean(),
    total: z.number(),
    created: z.number(),
    updated: z.number(),
    skipped: z.number(),
    errors: z.array(z.object({ index: z.number(), email: z.string().nullable(), error: z.string() })),
  }),
});
export const ContactParams = z.object({ contactId: z.string().min(1) });

/** A relationship from one of the user's contacts to another (POST /contacts/{contactId}/relationships). */
export const RelationshipBody = z.object({
  toContactId: z.string().trim().min(1, 'is required').max(100),
  type: Str(100).min(1, 'is required: a word such as manager, assistant, colleague, spouse'),
});
export const RelationshipParams = ContactParams.extend({ relationshipId: z.string().min(1).max(100) });
const RelationshipRow = z.object({ id: z.string(), fromContactId: z.string(), toContactId: z.string(), type: z.string(), createdAt: z.string() });
export const RelationshipEnvelope = z.object({ ok: z.literal(true), relationship: RelationshipRow });
export const DeletedRelationshipResponse = z.object({ ok: z.literal(true), relationship: z.object({ id: z.string(), deleted: z.literal(true) }) });
