/*
 * Composition (entry floor): the tasks area's answers to the hooks lower areas expose
 * (assistants' open tasks, contacts' task links, files shared through tasks). Filled in by
 * the tasks issue; imported by server/runtime.ts.
 */
export {};
