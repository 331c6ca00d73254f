// action.yml as the generators read it (docs.ts, component.ts): a file of its own, so neither imports the other for it.
export interface ActionFile {
  inputs: Record<string, { description: string; required?: boolean; default?: string }>;
  outputs: Record<string, { description: string }>;
}
