//! The network in and out: the network file (`boltzlab logz --network FILE` reads the same
//! JSON), a start from random couplings (the Sherrington–Kirkpatrick glass), and ln Z of the
//! current network four ways. A new network starts learning again (cycle 0, empty curves).

use super::{MachineLab, SEED};
use crate::error::ParamError;
use crate::estimate::log_z::{LogZ, page_log_z};
use crate::model::Network;

impl MachineLab {
    /// The network as the JSON file `boltzlab logz --network FILE` reads.
    pub fn export_network(&self) -> String {
        self.network().to_json()
    }

    /// Replaces the weights and biases by those of a network file with the same units,
    /// visible count and kind; the learner starts a fresh cycle. A malformed or
    /// mismatched file changes nothing.
    pub fn import_network(&mut self, text: &str) -> Result<(), ParamError> {
        let current = self.network();
        let n = current.len();
        let limit = (64 * n * n + 65_536).min(Network::MAX_JSON_BYTES);
        if text.len() > limit {
            return Err(ParamError::Invalid {
                field: "network file",
                reason: format!(
                    "the file is {} bytes; a network of this machine's {n} units takes at most {limit}",
                    text.len()
                ),
            });
        }
        let imported = Network::from_json(text)?;
        if imported.mask().is_some() && imported.mask() != current.mask() {
            return Err(ParamError::Invalid {
                field: "network file",
                reason: "its mask of allowed connections differs from this machine's".into(),
            });
        }
        if imported.len() != current.len()
            || imported.visible() != current.visible()
            || imported.kind() != current.kind()
        {
            return Err(ParamError::Invalid {
                field: "network file",
                reason: format!(
                    "this machine has {} units ({} visible, {} units); the file has {} ({} visible, {} units)",
                    current.len(),
                    current.visible(),
                    current.kind().name(),
                    imported.len(),
                    imported.visible(),
                    imported.kind().name()
                ),
            });
        }
        let mut network = imported;
        if let Some(mask) = current.mask() {
            network = network.with_mask(mask.to_vec())?;
        }
        self.adopt_network(network)
    }

    /// Starts from random couplings: the Sherrington–Kirkpatrick glass on this machine's n
    /// units, w_ij ~ N(0, 1/n) between ±1 spins with θ = 0 (docs/references.md,
    /// bibliography), drawn from `seed` (0 to 2^53) and written in the machine's own units by
    /// [`Network::to_kind`] (the same energy up to a constant). Pairs this machine's wiring
    /// forbids stay unconnected. Learning starts again from there (cycle 0, empty curves);
    /// on error nothing changes.
    pub fn random_couplings(&mut self, seed: u64) -> Result<(), ParamError> {
        let seed = SEED.check(seed)?;
        let current = self.network();
        let mut glass = Network::sherrington_kirkpatrick(current.len(), seed)?;
        for i in 0..current.len() {
            for j in i + 1..current.len() {
                if !current.is_allowed(i, j) {
                    glass.set_weight(i, j, 0.0)?;
                }
            }
        }
        let (glass, _) = glass.to_kind(current.kind());
        let mut network = glass.with_visible(current.visible())?;
        if let Some(mask) = current.mask() {
            network = network.with_mask(mask.to_vec())?;
        }
        self.adopt_network(network)
    }

    /// A new run of this dataset and protocol from `network`'s weights (an import or a
    /// random start); the version moves on so the page redraws.
    fn adopt_network(&mut self, network: Network) -> Result<(), ParamError> {
        let mut next = MachineLab::build(
            self.dataset.clone(),
            self.protocol.clone(),
            self.seed,
            Some(network),
        )?;
        next.version = self.version + 1;
        *self = next;
        Ok(())
    }

    /// ln Z of the current network at `temperature` by `method` (`exact`, `sampled`,
    /// `mean-field`, `ais`), with the page's fixed effort.
    pub fn log_z(&self, method: &str, temperature: f64) -> Result<LogZ, ParamError> {
        page_log_z(self.network(), method, temperature, self.seed)
    }
}
