/**
 * The one description of what Steward's SCIM resources hold (RFC 7643 §2.2, §7): `/Schemas`
 * publishes it, filters compare by its `caseExact`, PATCH obeys its `mutability`, and
 * `attributes` / `excludedAttributes` follow its `returned`. Changing what an attribute does
 * starts here, so what the server says and what it does cannot drift apart.
 */

export const USER_SCHEMA = 'urn:ietf:params:scim:schemas:core:2.0:User';
export const GROUP_SCHEMA = 'urn:ietf:params:scim:schemas:core:2.0:Group';
/** RFC 7643 §4.3: what Entra ID sends beside the core User on every POST and PATCH. */
export const ENTERPRISE_SCHEMA = 'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User';
/**
 * The extension's attributes live under one complex attribute of the User's view, named by this
 * alias (paths, filters and selections say the URN; schema.ts translates), and shown under the URN
 * itself on the wire (users.ts, wireUser).
 */
export const ENTERPRISE_ALIAS = 'enterpriseUser';

export type Mutability = 'readOnly' | 'readWrite' | 'immutable' | 'writeOnly';
export type AttributeType = 'string' | 'boolean' | 'dateTime' | 'reference' | 'complex';

export type Attribute = {
  name: string;
  type: AttributeType;
  multiValued: boolean;
  description: string;
  required: boolean;
  caseExact: boolean;
  mutability: Mutability;
  returned: 'always' | 'default' | 'never' | 'request';
  uniqueness: 'none' | 'server' | 'global';
  canonicalValues?: string[];
  referenceTypes?: string[];
  subAttributes?: Attribute[];
  /**
   * RFC 7643 §3.1 common attributes (id, meta, schemas): every resource has them, so they are
   * not listed in `/Schemas`, but filters, PATCH and projections still need their rules.
   */
  common?: boolean;
  /** The extension schema this attribute holds (published as its own schema, not among the resource's attributes). */
  extension?: string;
};

type Extra = Partial<Omit<Attribute, 'name' | 'type' | 'description'>>;
const attr = (name: string, type: AttributeType, description: string, extra: Extra = {}): Attribute => ({
  name,
  type,
  multiValued: false,
  description,
  required: false,
  caseExact: false,
  mutability: 'readWrite',
  returned: 'default',
  uniqueness: 'none',
  ...extra,
});

const common = (): Attribute[] => [
  attr('id', 'string', 'Steward’s identifier of the resource.', { caseExact: true, mutability: 'readOnly', returned: 'always', uniqueness: 'server', common: true }),
  attr('schemas', 'reference', 'The schemas of the resource.', { multiValued: true, caseExact: true, mutability: 'readOnly', returned: 'always', common: true }),
  attr('meta', 'complex', 'Resource metadata.', {
    mutability: 'readOnly',
    common: true,
    subAttributes: [
      attr('resourceType', 'string', 'User or Group.', { caseExact: true, mutability: 'readOnly' }),
      attr('created', 'dateTime', 'When the resource was created.', { mutability: 'readOnly' }),
      attr('lastModified', 'dateTime', 'When the resource last changed.', { mutability: 'readOnly' }),
      attr('location', 'reference', 'The URI of the resource.', { caseExact: true, mutability: 'readOnly', referenceTypes: ['uri'] }),
    ],
  }),
];

/**
 * A user's one email is their verified primary address, which is also their `userName`: the
 * organization vouched for it at creation (a verified domain) and SCIM never moves a person to
 * another address, so `emails` is immutable. Requests may repeat that address; another one is
 * refused (400 mutability), never dropped.
 */
const USER_ATTRIBUTES: Attribute[] = [
  ...common(),
  attr('userName', 'string', 'The user’s email address: their verified primary email. Set at creation; compared case-insensitively.', {
    required: true,
    mutability: 'immutable',
    uniqueness: 'server',
  }),
  attr('externalId', 'string', 'The identity provider’s identifier of the user (unique in the account).', { caseExact: true }),
  attr('name', 'complex', 'The user’s name.', {
    subAttributes: [
      attr('formatted', 'string', 'The full name; stored as the display name when displayName is not sent.'),
      attr('familyName', 'string', 'Family name.'),
      attr('givenName', 'string', 'Given name.'),
    ],
  }),
  attr('displayName', 'string', 'The name shown for the user.'),
  attr('active', 'boolean', 'false blocks the user everywhere (403 account_blocked); true restores them.'),
  attr('emails', 'complex', 'The user’s email: exactly the userName, type work, primary. Immutable.', {
    multiValued: true,
    mutability: 'immutable',
    subAttributes: [
      attr('value', 'string', 'The address (the userName).', { mutability: 'immutable' }),
      attr('type', 'string', 'Always work.', { mutability: 'immutable', canonicalValues: ['work'] }),
      attr('primary', 'boolean', 'Always true.', { mutability: 'immutable' }),
    ],
  }),
  attr('groups', 'complex', 'The user’s groups (teams). Change membership through the Group’s members.', {
    multiValued: true,
    mutability: 'readOnly',
    subAttributes: [
      attr('value', 'string', 'The group’s id.', { caseExact: true, mutability: 'readOnly' }),
      attr('display', 'string', 'The group’s displayName.', { mutability: 'readOnly' }),
    ],
  }),
];

const ENTERPRISE_ATTRIBUTES: Attribute[] = [
  attr('employeeNumber', 'string', 'A number the organization gives the person.', { caseExact: true }),
  attr('costCenter', 'string', 'The cost center.'),
  attr('organization', 'string', 'The organization the person belongs to.'),
  attr('division', 'string', 'The division.'),
  attr('department', 'string', 'The department.'),
  attr('manager', 'complex', 'The person’s manager: another user, by id (a plain id is accepted too).', {
    subAttributes: [
      attr('value', 'string', 'The manager’s id in the identity provider or in Steward.', { caseExact: true }),
      attr('displayName', 'string', 'The manager’s name.', { mutability: 'readOnly' }),
    ],
  }),
];

USER_ATTRIBUTES.push(
  attr(ENTERPRISE_ALIAS, 'complex', 'The enterprise extension, shown under its URN.', { subAttributes: ENTERPRISE_ATTRIBUTES, extension: ENTERPRISE_SCHEMA }),
);

const GROUP_ATTRIBUTES: Attribute[] = [
  ...common(),
  attr('displayName', 'string', 'The team’s name; compared case-insensitively.', { required: true }),
  attr('members', 'complex', 'The team’s active members: users of this organization.', {
    multiValued: true,
    subAttributes: [
      attr('value', 'string', 'The user’s id.', { caseExact: true, mutability: 'immutable' }),
      attr('display', 'string', 'The user’s userName (ignored in requests).', { mutability: 'readOnly' }),
    ],
  }),
];

export type ResourceSchema = { id: string; name: string; description: string; endpoint: string; attributes: Attribute[] };

/** Extension schemas as /Schemas publishes them, with the resource they extend. */
export const EXTENSION_SCHEMAS: Array<ResourceSchema & { extends: string }> = [
  { id: ENTERPRISE_SCHEMA, name: 'EnterpriseUser', description: 'Enterprise User', endpoint: '/Users', attributes: ENTERPRISE_ATTRIBUTES, extends: 'User' },
];

export const USER: ResourceSchema = { id: USER_SCHEMA, name: 'User', description: 'A person of the organization', endpoint: '/Users', attributes: USER_ATTRIBUTES };
export const GROUP: ResourceSchema = { id: GROUP_SCHEMA, name: 'Group', description: 'A team of the organization', endpoint: '/Groups', attributes: GROUP_ATTRIBUTES };
export const RESOURCE_SCHEMAS = [USER, GROUP];

const lower = (s: string) => s.toLowerCase();

/** An attribute (or sub-attribute) by name, as SCIM names are: case-insensitively. */
export const findAttribute = (list: readonly Attribute[] | undefined, name: string): Attribute | undefined =>
  list?.find((a) => lower(a.name) === lower(name));

/**
 * `urn:...:core:2.0:User:name.givenName` → `name.givenName` when the URN is the resource's own
 * schema, `…:enterprise:2.0:User:department` → `enterpriseUser.department` for a served
 * extension; null when it names another schema (an extension Steward does not serve).
 */
export function stripSchemaUrn(resource: ResourceSchema, path: string): string | null {
  // An extension's URN (`…:enterprise:2.0:User:department`) names its attribute under the alias.
  for (const a of resource.attributes) {
    if (!a.extension || !lower(path).startsWith(lower(a.extension))) continue;
    const rest = path.slice(a.extension.length);
    if (rest === '') return a.name;
    if (rest.startsWith(':')) return `${a.name}.${rest.slice(1)}`;
  }
  const bracket = path.indexOf('[');
  const head = bracket < 0 ? path : path.slice(0, bracket);
  const colon = head.lastIndexOf(':');
  if (colon < 0) return path;
  return lower(head.slice(0, colon)) === lower(resource.id) ? path.slice(colon + 1) : null;
}

/** Two values of an attribute are the same value: strings compare as the attribute's caseExact says. */
export function sameScalar(a: Attribute, x: unknown, y: unknown): boolean {
  if (typeof x === 'string' && typeof y === 'string' && !a.caseExact) return lower(x) === lower(y);
  return x === y;
}
