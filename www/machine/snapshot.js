// @ts-check
// The machine's part of the stored session. Since version 2 it is the engine's own session
// text (MachineLab.session / from_session), restored exactly; version 1 kept the options and
// the network JSON, rebuilt here by the engine's constructor and importer (its cycle count,
// stage and curves were not kept).

// The dataset control's value for a run (the engine calls the user's own patterns
// "patterns"; the control, "custom").
export const shownDataset = (lab) => (lab.dataset() === 'patterns' ? 'custom' : lab.dataset());

// What the dataset, method and seed controls (and the editor, for the user's own patterns)
// show for a run.
export function shownOptions(lab) {
  const options = { dataset: shownDataset(lab), method: lab.method(), seed: lab.seed() };
  if (options.dataset === 'custom') {
    const visible = lab.visible();
    const flat = lab.patterns_flat();
    const rows = [];
    for (let k = 0; k < lab.pattern_count(); k++)
      rows.push(Array.from(flat.slice(k * visible, (k + 1) * visible)).join(''));
    options.patterns = rows.join('\n');
    options.hidden = lab.units() - visible;
  }
  return options;
}

const isObject = (v) => v !== null && typeof v === 'object' && !Array.isArray(v);

// A MachineLab from a version-1 record, with its options and weights; throws (and frees
// what it built) when the engine refuses any of it.
export function fromRecordV1(engine, m) {
  if (!isObject(m)) throw new Error('not an object');
  for (const field of ['dataset', 'method', 'rule', 'schedule', 'network'])
    if (typeof m[field] !== 'string') throw new Error(`${field}: not a string`);
  for (const field of ['seed', 'rate', 'decay', 'collect'])
    if (typeof m[field] !== 'number') throw new Error(`${field}: not a number`);
  let lab;
  if (m.dataset === 'custom') {
    if (typeof m.patterns !== 'string' || typeof m.hidden !== 'number') throw new Error('custom patterns: missing');
    lab = engine.MachineLab.custom(m.patterns, m.hidden, m.method, m.seed);
  } else {
    lab = new engine.MachineLab(m.dataset, m.method, m.seed);
  }
  try {
    lab.dispatch({ command: 'set-update', rule: m.rule, size: m.rate });
    lab.dispatch({ command: 'set-weight-decay', decay: m.decay });
    lab.dispatch({ command: 'set-schedule', schedule: m.schedule, collect: m.collect });
    lab.dispatch({ command: 'import-network', text: m.network });
  } catch (err) {
    lab.free();
    throw err;
  }
  return lab;
}
