//! The pattern-memory facade: `MemoryLab` for the page (in its worker, www/memory/worker.js).
//!
//! A thin wrapper over [`crate::app::MemoryLab`]. The memory changes through one door,
//! `MemoryLab.dispatch`, which decodes a `MemoryCommand` object (serde-wasm-bindgen) and
//! returns the `MemoryReply` (the protocol: `app::memory`). Everything else reads: the state
//! and the weights as typed-array views over wasm memory, the overlaps, what the state is,
//! the energy and the session text.

use super::{decoding_error, js_error};
use crate::app::count::Count;
use crate::app::memory::{
    CAPACITY_PATTERNS, CAPACITY_RUN, CAPACITY_UNITS, HEIGHT, MemoryCommand, MemoryLab,
    RANDOM_STARTS, SEED, StorageChoice, WIDTH,
};
use crate::model::memory::Recall;
use wasm_bindgen::prelude::*;

/// One pattern memory.
#[wasm_bindgen(js_name = MemoryLab)]
pub struct WebMemoryLab {
    lab: MemoryLab,
}

#[wasm_bindgen(js_class = MemoryLab)]
impl WebMemoryLab {
    /// An empty `width × height` memory storing by Hebb's rule, from `seed`.
    #[wasm_bindgen(constructor)]
    pub fn new(width: f64, height: f64, seed: f64) -> Result<WebMemoryLab, JsError> {
        let (width, height) = (count(WIDTH, width)?, count(HEIGHT, height)?);
        let seed = count(SEED, seed)?;
        let lab = MemoryLab::new(width as usize, height as usize, seed, StorageChoice::Hebb)
            .map_err(js_error)?;
        Ok(WebMemoryLab { lab })
    }

    /// The one door for changes: decodes a `MemoryCommand` object, makes it and returns the
    /// `MemoryReply`; a command that cannot be decoded or is refused is thrown as an `Error`
    /// naming the field, and nothing changes.
    #[wasm_bindgen(unchecked_return_type = "MemoryReply")]
    pub fn dispatch(
        &mut self,
        #[wasm_bindgen(unchecked_param_type = "MemoryCommand")] command: JsValue,
    ) -> Result<JsValue, JsError> {
        let command: MemoryCommand =
            serde_wasm_bindgen::from_value(command).map_err(decoding_error)?;
        let reply = self.lab.apply(command).map_err(js_error)?;
        serde_wasm_bindgen::to_value(&reply).map_err(|e| JsError::new(&e.to_string()))
    }

    /// The memory as its session text (exact; see `app::memory`).
    pub fn session(&self) -> String {
        self.lab.session()
    }

    pub fn width(&self) -> usize {
        self.lab.width()
    }

    pub fn height(&self) -> usize {
        self.lab.height()
    }

    /// Patterns stored.
    pub fn pattern_count(&self) -> usize {
        self.lab.pattern_count()
    }

    /// Every stored picture, one after another (±1 per pixel).
    pub fn patterns_flat(&self) -> Vec<i8> {
        self.lab.patterns().concat()
    }

    /// The state, ±1 per pixel: a view of `width × height` i8 at this address.
    pub fn state_ptr(&self) -> *const i8 {
        self.lab.state().as_ptr()
    }

    /// The weights: a view of N × N f64 at this address.
    pub fn weights_ptr(&self) -> *const f64 {
        self.lab.weights().as_ptr()
    }

    /// The overlap m^μ of the state with each stored pattern.
    pub fn overlaps(&self) -> Vec<f64> {
        self.lab.overlaps()
    }

    /// What the state is: `pattern k`, `reversed k`, `mixture a b c` (signs before each
    /// index: `+a -b +c`), `other`, or `none` when nothing is stored (indices from 0).
    pub fn recall(&self) -> String {
        match self.lab.recall() {
            None => "none".into(),
            Some(Recall::Pattern { index, reversed }) => {
                format!("{} {index}", if reversed { "reversed" } else { "pattern" })
            }
            Some(Recall::Mixture { indices, signs }) => {
                let sign = |k: usize| if signs[k] > 0 { '+' } else { '-' };
                format!(
                    "mixture {}{} {}{} {}{}",
                    sign(0),
                    indices[0],
                    sign(1),
                    indices[1],
                    sign(2),
                    indices[2]
                )
            }
            Some(Recall::Other) => "other".into(),
        }
    }

    /// Whether the state is a fixed point of T = 0 dynamics.
    pub fn stable(&self) -> bool {
        self.lab.stable()
    }

    /// E(s) = −Σ_{i<j} w_ij s_i s_j.
    pub fn energy(&self) -> f64 {
        self.lab.energy()
    }

    pub fn temperature(&self) -> f64 {
        self.lab.temperature()
    }

    pub fn ticks(&self) -> f64 {
        self.lab.ticks() as f64
    }

    /// The memory's seed (at most 2^53, so exact as a JavaScript number).
    pub fn seed(&self) -> f64 {
        self.lab.seed() as f64
    }

    /// Run `run` of the capacity experiment for this memory's rule (`app::memory`,
    /// `MemoryLab::capacity_run`): [mean overlap of the recalls with their patterns, recalls
    /// within 1 %, recalls, random starts ending at a pattern, a reversed pattern, a mixture,
    /// elsewhere]. Whole numbers are checked by the engine (units 1 to 2048, patterns 1 to
    /// units, random starts 0 to 10⁴, run 0 to 10⁴); the memory does not change.
    pub fn capacity_run(
        &self,
        units: f64,
        patterns: f64,
        random_starts: f64,
        run: f64,
    ) -> Result<Vec<f64>, JsError> {
        let units = count(CAPACITY_UNITS, units)?;
        let patterns = count(CAPACITY_PATTERNS.up_to(units), patterns)? as usize;
        let starts = count(RANDOM_STARTS, random_starts)? as usize;
        let run = count(CAPACITY_RUN, run)?;
        let c = self
            .lab
            .capacity_run(units as usize, patterns, starts, run)
            .map_err(js_error)?;
        let mut out = vec![c.overlap().0, c.recalled as f64, c.recalls as f64];
        out.extend(c.from_random.iter().map(|&k| k as f64));
        Ok(out)
    }

    /// The storage rule's name: `hebb`, `unlearning` or `boltzmann`.
    pub fn rule(&self) -> String {
        self.lab.storage().name().into()
    }
}

/// A number from the page read as a count (the wire's reading).
fn count(count: Count, value: f64) -> Result<u64, JsError> {
    count.read(value).map_err(js_error)
}

#[cfg(test)]
mod tests {
    use super::*;
    use wasm_bindgen_test::*;

    wasm_bindgen_test_configure!(run_in_browser);

    /// Commands as JavaScript objects reach the memory, and a refused one changes nothing.
    #[wasm_bindgen_test]
    fn commands_from_javascript_objects() {
        let mut lab = WebMemoryLab::new(8.0, 8.0, 3.0).unwrap();
        let command = |text: &str| js_sys::JSON::parse(text).unwrap();
        lab.dispatch(command(r#"{"command":"add-digits"}"#))
            .unwrap();
        lab.dispatch(command(r#"{"command":"cue","pattern":1,"flip":0.05}"#))
            .unwrap();
        lab.dispatch(command(r#"{"command":"settle"}"#)).unwrap();
        assert!(lab.stable());
        let before = lab.session();
        assert!(
            lab.dispatch(command(r#"{"command":"set-temperature","temperature":-2}"#))
                .is_err()
        );
        assert_eq!(lab.session(), before);
        assert_eq!(lab.pattern_count(), 10);
    }

    /// A capacity run from JavaScript numbers is the engine's run for the memory's rule, and a
    /// bad shape is refused by name with nothing changed.
    #[wasm_bindgen_test]
    fn capacity_runs_from_javascript_numbers() {
        let lab = WebMemoryLab::new(8.0, 8.0, 3.0).unwrap();
        let before = lab.session();
        let out = lab.capacity_run(40.0, 4.0, 5.0, 1.0).unwrap();
        let c = lab.lab.capacity_run(40, 4, 5, 1).unwrap();
        assert_eq!(out[0], c.overlap().0);
        assert_eq!(out[1..3], [c.recalled as f64, c.recalls as f64]);
        assert_eq!(out[3..].iter().sum::<f64>(), 5.0);
        assert!(lab.capacity_run(40.0, 41.0, 0.0, 0.0).is_err());
        assert!(lab.capacity_run(40.0, 2.5, 0.0, 0.0).is_err());
        assert_eq!(lab.session(), before);
    }
}
