/** The autonomy matrix's action types and modes in a person's words (spec document 2, Supervision matrix). */
export const ACTION: Record<string, { label: string; covers: string }> = {
  email_as_user: { label: 'Email as you', covers: 'sent from your own mailbox' },
  email_as_assistant: { label: 'Email as the assistant', covers: 'from the assistant’s own address' },
  messaging: { label: 'Messages', covers: 'SMS, iMessage, WhatsApp and chat' },
  voice_call_as_assistant: { label: 'Calls as the assistant', covers: 'the assistant speaks as itself' },
  voice_call_as_user: { label: 'Calls as you', covers: 'the assistant speaks for you' },
  calendar: { label: 'Calendar', covers: 'creating, changing, cancelling events' },
  files: { label: 'Assistant’s files', covers: 'saving to your Files and attaching your files to messages' },
  drive: { label: 'Your drive', covers: 'reserved: no connected drive is used yet, so this setting has no effect' },
  contacts: { label: 'Contacts', covers: 'changes to your contacts' },
  third_party_skills: { label: 'Connected apps', covers: 'actions through connected apps and MCP servers' },
  website: { label: 'Website', covers: 'submitting forms in your workspace browser that sign in, send, buy or change something' },
};

export const MODE: Record<string, string> = { auto: 'Send at once', 'time-boxed': 'Wait for review, then send', manual: 'Only when I approve' };

export const SOURCE: Record<string, string> = {
  user: 'your setting',
  lock: 'locked',
  team: 'from your team',
  organization: 'from your organization',
  account: 'from your company',
  default: 'the default',
};

export const LOCKER: Record<string, string> = { parent: 'your company', org: 'your organization', team: 'your team' };
