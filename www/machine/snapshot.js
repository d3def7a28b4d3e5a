// The machine's part of the stored session. Version 1 kept its options and its network
// JSON, rebuilt by the engine's constructor and importer.

// The version-1 record of the mode's run, or null before the mode was first shown.
export function recordV1(mode) {
  const lab = mode.lab;
  if (!lab) return null;
  const record = {
    dataset: mode.dataset,
    method: lab.method(),
    seed: lab.seed(),
    rule: lab.rule(),
    rate: lab.rule_size(),
    decay: lab.weight_decay(),
    schedule: lab.schedule(),
    collect: lab.collect_sweeps(),
    cycles: lab.cycles(),
    network: lab.export_network(),
  };
  if (mode.dataset === 'custom') {
    const visible = lab.visible();
    const flat = mode.patterns;
    const rows = [];
    for (let k = 0; k < lab.pattern_count(); k++)
      rows.push(Array.from(flat.slice(k * visible, (k + 1) * visible)).join(''));
    record.patterns = rows.join('\n');
    record.hidden = lab.units() - visible;
  }
  return record;
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
    lab.set_update(m.rule, m.rate);
    lab.set_weight_decay(m.decay);
    lab.set_schedule(m.schedule, m.collect);
    lab.import_network(m.network);
  } catch (err) {
    lab.free();
    throw err;
  }
  return lab;
}
