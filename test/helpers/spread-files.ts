// The order of test files the run's sequencer gives (test/helpers/sequencer.ts), kept apart from vitest's
// own modules so that its test loads none of them.

/**
 * Within each group (sequence.groupOrder): the shared projects named in `first` as blocks, then the isolated
 * projects spread through one another, then the other shared projects as blocks.
 */
export function spread<T extends Spec>(sorted: T[], first: string[] = []): T[] {
  const groups = groupBy(sorted, (spec) => spec.project.config.sequence.groupOrder ?? 0);
  return [...groups.keys()].sort((a, b) => a - b).flatMap((order) => spreadGroup(groups.get(order)!, first));
}

type Spec = { project: { name: string; config: { isolate?: boolean; sequence: { groupOrder?: number } } } };

function spreadGroup<T extends Spec>(specs: T[], first: string[]): T[] {
  const byProject = groupBy(specs, (spec) => spec.project.name);
  const isolated = [...byProject.values()].filter((files) => files[0].project.config.isolate !== false);
  const shared = [...byProject.values()].filter((files) => files[0].project.config.isolate === false);
  // Each isolated project's i-th of n files takes the place (i + 0.5) / n, so every project is spread over the
  // whole stretch in its own order; ties keep the projects' order.
  const placed = isolated.flatMap((files, p) => files.map((spec, i) => ({ spec, at: (i + 0.5) / files.length, p })));
  placed.sort((a, b) => a.at - b.at || a.p - b.p);
  const early = first.flatMap((name) => shared.filter((files) => files[0].project.name === name));
  const late = shared.filter((files) => !early.includes(files));
  return [...early.flat(), ...placed.map(({ spec }) => spec), ...late.flat()];
}

/** `items` by `key`, each list in the items' order, the keys in the order first seen. */
function groupBy<T, K>(items: T[], key: (item: T) => K): Map<K, T[]> {
  const groups = new Map<K, T[]>();
  for (const item of items) {
    const list = groups.get(key(item));
    if (list) list.push(item);
    else groups.set(key(item), [item]);
  }
  return groups;
}
