//! Bounded histories: the points a live view draws, kept in contiguous columns so the page
//! can read each as a typed-array view over wasm memory.
//!
//! [`History`] holds K columns of equal length and at most `capacity` points; when it is
//! full a new point first makes room by its [`Eviction`]: the lattice's energy trace drops
//! the older half (so it never reallocates and rarely moves), the machine's learning curves
//! drop the oldest point (so the curve always shows the last `capacity` cycles).
//! [`Trace`] is the lattice's history of (sweeps, E/N, M/N).

/// What a full [`History`] drops before it takes a new point.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Eviction {
    /// The older half of the points (capacity / 2 are kept).
    OlderHalf,
    /// The oldest point.
    Oldest,
}

/// A bounded history of points with K coordinates, one contiguous column per coordinate.
#[derive(Debug, Clone, PartialEq)]
pub struct History<const K: usize> {
    capacity: usize,
    eviction: Eviction,
    columns: [Vec<f64>; K],
}

impl<const K: usize> History<K> {
    /// A history of at most `capacity` points (at least 2) that evicts by `eviction`.
    pub fn with_eviction(capacity: usize, eviction: Eviction) -> Self {
        let capacity = capacity.max(2);
        History {
            capacity,
            eviction,
            columns: std::array::from_fn(|_| Vec::with_capacity(capacity)),
        }
    }

    /// Appends a point, first evicting if the history is full. Never reallocates after
    /// creation.
    pub fn push_point(&mut self, point: [f64; K]) {
        if self.len() == self.capacity {
            let drop = match self.eviction {
                Eviction::OlderHalf => self.capacity - self.capacity / 2,
                Eviction::Oldest => 1,
            };
            for column in &mut self.columns {
                column.drain(..drop);
            }
        }
        for (column, x) in self.columns.iter_mut().zip(point) {
            column.push(x);
        }
    }

    /// Coordinate `k` of every point, oldest first.
    pub fn column(&self, k: usize) -> &[f64] {
        &self.columns[k]
    }

    pub fn clear(&mut self) {
        for column in &mut self.columns {
            column.clear();
        }
    }

    pub fn len(&self) -> usize {
        self.columns.first().map_or(0, Vec::len)
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    pub fn capacity(&self) -> usize {
        self.capacity
    }
}

/// The lattice's energy trace: (sweeps, E/N, M/N), dropping the older half when full.
pub type Trace = History<3>;

impl History<3> {
    /// A trace that holds at most `capacity` points (at least 2).
    pub fn new(capacity: usize) -> Self {
        History::with_eviction(capacity, Eviction::OlderHalf)
    }

    /// Appends (sweeps, E/N, M/N), first dropping the older half if the trace is full.
    pub fn push(&mut self, sweeps: f64, energy: f64, magnetization: f64) {
        self.push_point([sweeps, energy, magnetization]);
    }

    pub fn sweeps(&self) -> &[f64] {
        self.column(0)
    }

    pub fn energy(&self) -> &[f64] {
        self.column(1)
    }

    pub fn magnetization(&self) -> &[f64] {
        self.column(2)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn trace_stays_bounded_and_keeps_the_newest_points_in_order() {
        let mut trace = Trace::new(8);
        for k in 0..1000 {
            trace.push(k as f64, -(k as f64), 0.0);
            assert!(trace.len() <= 8);
        }
        assert_eq!(trace.sweeps().last(), Some(&999.0));
        assert!(trace.sweeps().windows(2).all(|w| w[0] < w[1]));
        assert_eq!(trace.energy().last(), Some(&-999.0));
    }

    #[test]
    fn a_curve_that_drops_its_oldest_point_keeps_the_last_capacity_points() {
        let mut curve = History::<2>::with_eviction(4, Eviction::Oldest);
        for k in 0..10 {
            curve.push_point([k as f64, 2.0 * k as f64]);
        }
        assert_eq!(curve.column(0), [6.0, 7.0, 8.0, 9.0]);
        assert_eq!(curve.column(1), [12.0, 14.0, 16.0, 18.0]);
    }
}
