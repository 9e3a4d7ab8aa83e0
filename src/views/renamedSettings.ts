// Settings that were renamed keep working under their old names: the new key wins when the user set it anywhere,
// else the old (deprecated) key's value when set, else the new key's default. No `vscode` import: it takes the
// configuration object, so the rule is testable without VS Code.

/** The old name of each renamed `docsRag.*` setting (package.json marks the old ones deprecated). */
export const RENAMED_SETTINGS = {
  'search.queryExpansion': 'search.expansion',
  'search.documentExpansionThreshold': 'search.expansionThreshold',
} as const;

export type RenamedSetting = keyof typeof RENAMED_SETTINGS;

/** The part of `vscode.WorkspaceConfiguration` the rule reads. */
export interface SettingsReader {
  get<T>(section: string): T | undefined;
  /** Values by scope: `globalValue`, `workspaceValue`, `workspaceFolderValue`, the language-specific ones, and defaults. */
  inspect(section: string): object | undefined;
}

/** Whether the user (or workspace) set `key` in any scope; a default alone does not count. */
function isSet(c: SettingsReader, key: string): boolean {
  return Object.entries(c.inspect(key) ?? {}).some(([scope, v]) => v !== undefined && /^(?!default).*Value$/.test(scope));
}

/** The value of a renamed setting: the new key when set, else the old key when set, else the new key's default. */
export function renamedSetting<T>(c: SettingsReader, key: RenamedSetting): T | undefined {
  const old = RENAMED_SETTINGS[key];
  return c.get<T>(!isSet(c, key) && isSet(c, old) ? old : key);
}
