//! The Boltzmann-machine facade: `MachineLab` for the page's learning view.
//!
//! A thin wrapper over [`crate::app::MachineLab`]. The one door for changes is
//! `MachineLab::dispatch`, which decodes a `MachineCommand` object (serde-wasm-bindgen) and
//! returns the `MachineReply` (the protocol: `app::machine::command`). The older exported
//! methods that change the run stay for the page: each reads its numbers once, through the
//! same counts as the wire, builds its command and goes through the same dispatcher. Values
//! from the page are checked by the engine (errors are thrown as `Error`s naming the field,
//! and nothing changes); the views read activations, clamps, weights, statistics and curves
//! through typed-array views over wasm memory from the pointers below.

use super::{decoding_error, js_error};
use crate::app::machine::{
    GALLERY_SAMPLES, GALLERY_SEED, HIDDEN, PATTERN_NUMBER, SEED, STEPS, UpdateRule,
};
use crate::app::{Count, MachineCommand, MachineLab, MachineReply};
use crate::learn::experiment::LearningMethod;
use wasm_bindgen::prelude::*;

/// Checks the length of a pattern drawn in the editor: a whole number of pixels, 1 to
/// 256; returns it.
#[wasm_bindgen]
pub fn check_pattern_length(length: f64) -> Result<f64, JsError> {
    crate::error::whole_in("pattern length", length, 1, 256)
        .map(|n| n as f64)
        .map_err(js_error)
}

/// Checks the pattern editor's text (one pattern per line of 0s and 1s, all of one
/// length); returns the number of patterns.
#[wasm_bindgen]
pub fn check_patterns(text: &str) -> Result<f64, JsError> {
    crate::app::parse::parse_patterns(text)
        .map(|p| p.len() as f64)
        .map_err(js_error)
}

/// One Boltzmann-machine learning run.
#[wasm_bindgen(js_name = MachineLab)]
pub struct WebMachineLab {
    lab: MachineLab,
}

/// Changes as Rust methods, for Rust callers (the wasm tests): each builds its command and
/// goes through the one dispatcher, as the page's command objects do. Not exported:
/// JavaScript changes the run only with `dispatch`.
impl WebMachineLab {
    fn command(&mut self, command: MachineCommand) -> Result<MachineReply, JsError> {
        self.lab.apply(command).map_err(js_error)
    }

    /// A number from the page read as a count (the wire's reading).
    fn count(count: Count, value: f64) -> Result<u64, JsError> {
        count.read(value).map_err(js_error)
    }

    /// Advances by up to `steps` sweeps (stochastic) or solves (mean field); returns the
    /// cycles completed.
    pub fn advance(&mut self, steps: f64) -> Result<f64, JsError> {
        let steps = Self::count(STEPS, steps)?;
        self.command(MachineCommand::Advance { steps })
            .map(Self::advanced)
    }

    fn advanced(reply: MachineReply) -> f64 {
        match reply {
            MachineReply::Advanced { cycles } => cycles as f64,
            other => unreachable!("learning answers advanced, not {other:?}"),
        }
    }
}

/// Public methods, exported to JavaScript.
#[wasm_bindgen(js_class = MachineLab)]
impl WebMachineLab {
    /// A run on a built-in problem (`4-2-4`, `bars-3x3`, `pixels-10`, …) with `method`
    /// (`stochastic` or `mean-field`) from `seed`.
    #[wasm_bindgen(constructor)]
    pub fn new(problem: &str, method: &str, seed: f64) -> Result<WebMachineLab, JsError> {
        let seed = Self::count(SEED, seed)?;
        let lab = MachineLab::new(problem, method, seed).map_err(js_error)?;
        Ok(WebMachineLab { lab })
    }

    /// A run on the user's patterns: text with one pattern per line of 0s and 1s (spaces
    /// ignored), and `hidden` hidden units.
    pub fn custom(
        text: &str,
        hidden: f64,
        method: &str,
        seed: f64,
    ) -> Result<WebMachineLab, JsError> {
        let seed = Self::count(SEED, seed)?;
        let hidden = Self::count(HIDDEN, hidden)?;
        let patterns = crate::app::parse::parse_patterns(text).map_err(js_error)?;
        let method = LearningMethod::parse(method).map_err(js_error)?;
        let lab = MachineLab::custom(patterns, hidden, method, seed).map_err(js_error)?;
        Ok(WebMachineLab { lab })
    }

    /// The run restored from session text written by `session()`: it continues exactly
    /// where it was saved (cycle, stage, curves, learner state, random streams). Every field
    /// is checked; a bad or damaged text throws an Error naming the field.
    pub fn from_session(text: &str) -> Result<WebMachineLab, JsError> {
        let lab = MachineLab::from_session(text).map_err(js_error)?;
        Ok(WebMachineLab { lab })
    }

    /// The one door for changes: decodes a `MachineCommand` object (`{command: "advance",
    /// steps: 64}`, see the TypeScript types), makes it, and returns the `MachineReply`; a
    /// command that cannot be decoded or is refused is thrown as an `Error` naming the field,
    /// and nothing changes.
    #[wasm_bindgen(unchecked_return_type = "MachineReply")]
    pub fn dispatch(
        &mut self,
        #[wasm_bindgen(unchecked_param_type = "MachineCommand")] command: JsValue,
    ) -> Result<JsValue, JsError> {
        let command: MachineCommand =
            serde_wasm_bindgen::from_value(command).map_err(decoding_error)?;
        let reply = self.command(command)?;
        serde_wasm_bindgen::to_value(&reply).map_err(|e| JsError::new(&e.to_string()))
    }

    /// The whole run as versioned session text (JSON), for the page to store opaquely.
    pub fn session(&self) -> String {
        self.lab.session()
    }

    /// The way of getting the statistics' name.
    pub fn statistics(&self) -> String {
        self.lab.statistics_way().0
    }

    /// Its fantasy particles K (0 if none).
    pub fn statistics_particles(&self) -> f64 {
        self.lab.statistics_way().1 as f64
    }

    /// Its sweeps per chain and cycle (0 for `anneal`).
    pub fn statistics_sweeps(&self) -> f64 {
        self.lab.statistics_way().2 as f64
    }

    /// Its chains per particle R (1 unless tempering, 0 for an annealed free phase).
    pub fn statistics_replicas(&self) -> f64 {
        self.lab.statistics_way().3 as f64
    }

    /// `gradient` or `sign`.
    pub fn rule(&self) -> String {
        UpdateRule::of(self.lab.update()).0.name().into()
    }

    /// The rule's rate ε or step k.
    pub fn rule_size(&self) -> f64 {
        UpdateRule::of(self.lab.update()).1
    }

    pub fn weight_decay(&self) -> f64 {
        self.lab.weight_decay()
    }

    pub fn schedule(&self) -> String {
        self.lab.schedule_text()
    }

    pub fn collect_sweeps(&self) -> f64 {
        self.lab.collect_sweeps() as f64
    }

    pub fn method(&self) -> String {
        self.lab.method().into()
    }

    pub fn dataset(&self) -> String {
        self.lab.dataset_name().into()
    }

    pub fn seed(&self) -> f64 {
        self.lab.seed() as f64
    }

    pub fn temperature(&self) -> f64 {
        self.lab.temperature()
    }

    pub fn cycles(&self) -> f64 {
        self.lab.cycles() as f64
    }

    /// `clamped` or `free`.
    pub fn phase(&self) -> String {
        self.lab.phase().name().into()
    }

    /// The training vector clamped now, or −1 when none is.
    pub fn pattern(&self) -> f64 {
        self.lab.pattern().map_or(-1.0, |k| k as f64)
    }

    pub fn units(&self) -> usize {
        self.lab.units()
    }

    pub fn visible(&self) -> usize {
        self.lab.visible()
    }

    pub fn encoder_group(&self) -> usize {
        self.lab.encoder_group()
    }

    pub fn pattern_count(&self) -> usize {
        self.lab.patterns().len()
    }

    /// All training vectors, concatenated (patterns × visible bytes, 0/1).
    pub fn patterns_flat(&self) -> Vec<u8> {
        self.lab.patterns().concat()
    }

    pub fn version(&self) -> f64 {
        self.lab.version() as f64
    }

    pub fn activations_ptr(&self) -> *const f64 {
        self.lab.activations().as_ptr()
    }

    pub fn clamps_ptr(&self) -> *const u8 {
        self.lab.clamps().as_ptr()
    }

    pub fn weights_ptr(&self) -> *const f64 {
        self.lab.weights().as_ptr()
    }

    pub fn biases_ptr(&self) -> *const f64 {
        self.lab.biases().as_ptr()
    }

    pub fn clamped_pairs_ptr(&self) -> *const f64 {
        self.lab.clamped_pairs().as_ptr()
    }

    pub fn free_pairs_ptr(&self) -> *const f64 {
        self.lab.free_pairs().as_ptr()
    }

    pub fn pair_difference_ptr(&self) -> *const f64 {
        self.lab.pair_difference().as_ptr()
    }

    pub fn curve_len(&self) -> usize {
        self.lab.curve_cycles().len()
    }

    pub fn curve_cycles_ptr(&self) -> *const f64 {
        self.lab.curve_cycles().as_ptr()
    }

    pub fn curve_kl_ptr(&self) -> *const f64 {
        self.lab.curve_kl().as_ptr()
    }

    pub fn curve_solved_ptr(&self) -> *const f64 {
        self.lab.curve_solved().as_ptr()
    }

    /// Whether KL is estimated by AIS (the machine is too big to enumerate).
    pub fn kl_estimated(&self) -> bool {
        self.lab.kl_estimated()
    }

    /// Whether an AIS estimate of KL is under way.
    pub fn estimating(&self) -> bool {
        self.lab.estimating()
    }

    pub fn ais_len(&self) -> usize {
        self.lab.curve_ais_cycles().len()
    }

    pub fn ais_cycles_ptr(&self) -> *const f64 {
        self.lab.curve_ais_cycles().as_ptr()
    }

    pub fn ais_kl_ptr(&self) -> *const f64 {
        self.lab.curve_ais_kl().as_ptr()
    }

    pub fn ais_stderr_ptr(&self) -> *const f64 {
        self.lab.curve_ais_stderr().as_ptr()
    }

    /// The protocol stage under way, described (empty for one-stage protocols).
    pub fn stage(&self) -> String {
        self.lab.stage_text()
    }

    /// The 0-based pattern of training pattern `number` as the page's box shows it (1-based),
    /// refused naming `pattern to clamp` and its range: for the `explore` command.
    pub fn pattern_of_number(&self, number: f64) -> Result<f64, JsError> {
        let count = self.lab.patterns().len() as u64;
        let number = PATTERN_NUMBER.up_to(count).read(number).map_err(js_error)?;
        Ok((number - 1) as f64)
    }

    pub fn exploring(&self) -> bool {
        self.lab.exploring()
    }

    /// Free-running samples grouped: [{pattern, frequency, probability?, training}].
    pub fn gallery(&self, count: f64, seed: f64) -> Result<JsValue, JsError> {
        use serde::Serialize;
        let count = Self::count(GALLERY_SAMPLES, count)?;
        let seed = Self::count(GALLERY_SEED, seed)?;
        let entries = self.lab.gallery(count, seed).map_err(js_error)?;
        entries
            .serialize(&serde_wasm_bindgen::Serializer::json_compatible())
            .map_err(|e| JsError::new(&e.to_string()))
    }

    /// The network JSON that `boltzlab logz --network FILE` reads.
    pub fn export_network(&self) -> String {
        self.lab.export_network()
    }

    /// ln Z of the current network at T by `method`: {method, log_z, stderr?, bound, …}.
    pub fn log_z(&self, method: &str, temperature: f64) -> Result<JsValue, JsError> {
        use serde::Serialize;
        let result = self.lab.log_z(method, temperature).map_err(js_error)?;
        result
            .serialize(&serde_wasm_bindgen::Serializer::json_compatible())
            .map_err(|e| JsError::new(&e.to_string()))
    }
}

/// The protocol through real JavaScript objects (headless Chromium): the page's command
/// objects decode (names, numbers, `null` for no pattern), replies come back as objects, the
/// older methods go through the same dispatcher, and a bad value is thrown with the engine's
/// message, changing nothing.
///
///   CHROMEDRIVER=/usr/bin/chromedriver cargo test --target wasm32-unknown-unknown \
///     --no-default-features --lib
#[cfg(all(test, target_arch = "wasm32"))]
mod tests {
    use super::WebMachineLab;
    use wasm_bindgen::{JsCast, JsValue};
    use wasm_bindgen_test::*;

    wasm_bindgen_test_configure!(run_in_browser);

    fn object(json: &str) -> JsValue {
        js_sys::JSON::parse(json).expect("valid JSON")
    }

    fn field(value: &JsValue, name: &str) -> JsValue {
        js_sys::Reflect::get(value, &JsValue::from_str(name)).expect("a field")
    }

    #[wasm_bindgen_test]
    fn page_objects_decode_and_replies_come_back_as_objects() {
        let mut lab = WebMachineLab::new("4-2-4", "stochastic", 1.0).unwrap();
        let reply = lab
            .dispatch(object(r#"{"command": "step-cycle"}"#))
            .unwrap();
        assert_eq!(field(&reply, "reply"), JsValue::from_str("advanced"));
        assert_eq!(field(&reply, "cycles"), JsValue::from_f64(1.0));
        assert_eq!(lab.cycles(), 1.0);

        lab.dispatch(object(r#"{"command": "explore", "pattern": null}"#))
            .unwrap();
        assert!(lab.exploring());
        assert_eq!(lab.pattern(), -1.0);
        // The page's box is 1-based: pattern number 2 is pattern 1.
        let pattern = lab.pattern_of_number(2.0).unwrap();
        assert_eq!(pattern, 1.0);
        lab.dispatch(object(&format!(
            r#"{{"command": "explore", "pattern": {pattern}}}"#
        )))
        .unwrap();
        assert_eq!(lab.pattern(), 1.0);
        assert!(lab.pattern_of_number(5.0).is_err());

        let reply = lab
            .dispatch(object(
                r#"{"command": "new-custom-run", "patterns": "1100\n0011", "hidden": 1, "method": "mean-field", "seed": 3}"#,
            ))
            .unwrap();
        assert_eq!(field(&reply, "reply"), JsValue::from_str("restarted"));
        assert_eq!(field(&reply, "units"), JsValue::from_f64(5.0));
        assert_eq!(lab.method(), "mean-field");
    }

    #[wasm_bindgen_test]
    fn a_bad_value_is_thrown_with_the_engines_message_and_changes_nothing() {
        let mut lab = WebMachineLab::new("4-2-4", "stochastic", 1.0).unwrap();
        let before = lab.session();
        let error = lab
            .dispatch(object(r#"{"command": "advance", "steps": 2.5}"#))
            .unwrap_err();
        let message = JsValue::from(error)
            .unchecked_into::<js_sys::Error>()
            .message();
        let expected = crate::app::machine::STEPS
            .read(2.5)
            .unwrap_err()
            .to_string();
        assert_eq!(String::from(message), expected);
        let error = lab.advance(2.5).unwrap_err();
        let message = JsValue::from(error)
            .unchecked_into::<js_sys::Error>()
            .message();
        assert_eq!(String::from(message), expected);
        assert_eq!(lab.session(), before);
    }
}
