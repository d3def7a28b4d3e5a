//! The benchmark's JavaScript reference sampler (www/bench/reference.js) uses the same
//! acceptance thresholds as the engine's lattice tick, so the two race on the same rule.
//! Runs the JS table builder in node.

use boltzlab::Rule;
use boltzlab::dynamics::rules::acceptance_table;
use std::process::Command;

const CASES: [(f64, f64, f64); 6] = [
    (1.0, 0.0, 2.269_185_314_213_022),
    (1.0, 0.3, 1.5),
    (-1.0, 0.0, 0.7),
    (1.0, -0.25, 4.0),
    (0.5, 1.0, 0.0),
    (1.0, 0.0, 100.0),
];

#[test]
fn the_javascript_reference_accepts_with_the_engines_probabilities() {
    let script = format!(
        "import('./www/bench/reference.js').then((m) => {{ const out = []; \
         for (const rule of ['heat-bath', 'metropolis']) for (const [j, h, t] of {cases}) \
         out.push(Array.from(m.acceptanceTable(rule, j, h, t))); \
         console.log(JSON.stringify(out)); }})",
        cases = serde_json::to_string(&CASES.map(|(j, h, t)| [j, h, t])).unwrap()
    );
    let output = Command::new("node")
        .args(["--input-type=module", "-e", &script])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("node runs (scripts/setup.sh installs it with the npm tools)");
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let tables: Vec<Vec<f64>> = serde_json::from_slice(&output.stdout).unwrap();
    let mut k = 0;
    for rule in [Rule::HeatBath, Rule::Metropolis] {
        for (j, h, t) in CASES {
            let engine = acceptance_table(rule, j, h, t);
            for (index, &threshold) in engine.iter().flatten().enumerate() {
                // Math.exp and libm::exp may differ in the last bit, which moves
                // round(P · 2^32) by at most 1: P(accept) agrees within 2^−32.
                let js = tables[k][index];
                assert!(
                    (js - threshold as f64).abs() <= 1.0,
                    "{rule:?} J={j} h={h} T={t} [{index}]: JS {js}, engine {threshold}"
                );
            }
            k += 1;
        }
    }
}
