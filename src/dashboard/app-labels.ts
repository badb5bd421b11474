import type { Application } from "../domain.ts";
import { nameKey } from "../services/applications.ts";

/** The first characters of an id: enough to tell applications apart at a glance. */
export const shortId = (id: string): string => id.slice(0, 8);

export type Labelled<T> = T & { label: string; shortId: string; sharedName: boolean };

/**
 * Applications with the label a list or menu shows: the name, and for a name that several applications share, the
 * day each was created and the start of its id ("Studio (2026-11-24, 1f3a5c7e)"), so none of them looks like another.
 */
export function labelled<T extends Application>(apps: T[]): Labelled<T>[] {
  const counts = new Map<string, number>();
  for (const app of apps) counts.set(nameKey(app.name), (counts.get(nameKey(app.name)) ?? 0) + 1);
  return apps.map((app) => {
    const sharedName = (counts.get(nameKey(app.name)) ?? 0) > 1;
    const label = sharedName ? `${app.name} (${app.createdAt.slice(0, 10)}, ${shortId(app.id)})` : app.name;
    return { ...app, label, shortId: shortId(app.id), sharedName };
  });
}
