/** How the console names capability switches, action types and approval modes (the API's names stay behind them). */
export const SWITCH_LABELS: Record<string, string> = {
  workspaceCli: 'Workspace shell (command line)',
  browserAutomation: 'Browser automation',
  workspaceHandoff: 'Browser handoffs to people',
  mcpServers: 'MCP servers as skills',
  slackWorkspaceApps: 'People’s own Slack apps',
};

export const ACTION_LABELS: Record<string, string> = {
  email_as_user: 'Email as the user',
  email_as_assistant: 'Email as the assistant',
  messaging: 'Messages (texts and chat apps)',
  voice_call_as_assistant: 'Calls as the assistant',
  voice_call_as_user: 'Calls as the user',
  calendar: 'Calendar changes',
  files: 'Files',
  drive: 'Drive',
  contacts: 'Contacts',
  third_party_skills: 'Third-party skills',
  website: 'Actions on websites',
};

export const MODE_LABELS: Record<string, string> = {
  auto: 'Goes ahead on its own',
  'time-boxed': 'Goes ahead after an undo window',
  manual: 'Waits for approval',
};
