// One file per area; every table is re-exported here for drizzle-kit and the client.
export * from './accounts';
export * from './access';
export * from './users';
export * from './organizations';
export * from './teams';
export * from './prompts';
export * from './memories';
export * from './contacts';
export * from './files';
export * from './executor';
export * from './domains';
export * from './assistants';
export * from './policy';
export * from './channels';
export * from './mail';
export * from './sign-in';
export * from './invitations';
