/** Drops the keys whose value is undefined, so a request carries only what the user gave. */
export function given<T extends object>(fields: T): T {
  return Object.fromEntries(Object.entries(fields).filter(([, v]) => v !== undefined)) as T;
}
