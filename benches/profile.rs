//! One kernel on a 1024×1024 periodic lattice at T_c for a few sweeps, to be counted by
//! callgrind (instructions per tick, reliable on a loaded machine):
//!
//! ```text
//! cargo bench --bench profile --no-run
//! valgrind --tool=callgrind target/release/deps/profile-* lanes-heat-bath 4
//! ```
//!
//! Kernels: `lanes-heat-bath`, `lanes-metropolis` (the bare lanes kernel, whole sweeps),
//! `app-heat-bath`, `app-metropolis` (the sampler with lanes on, in chunks of 2^16 ticks as
//! the page runs it), `scalar-heat-bath`, `scalar-metropolis` (one stream), all in
//! checkerboard order. Subtract a run with 0 sweeps to remove the set-up cost.

use boltzlab::dynamics::lanes::CheckerboardLanes;
use boltzlab::exact::CRITICAL_TEMPERATURE;
use boltzlab::{Dynamics, Lattice, LatticeSampler, Order, Rule};

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let kernel = args.get(1).map_or("lanes-heat-bath", String::as_str);
    let sweeps: u64 = args.get(2).map_or(4, |s| s.parse().expect("sweeps"));
    let lattice = Lattice::square(1024).unwrap();
    let n = lattice.len() as u64;
    let (kind, rule) = match kernel {
        "lanes-heat-bath" => ("lanes", Rule::HeatBath),
        "lanes-metropolis" => ("lanes", Rule::Metropolis),
        "app-heat-bath" => ("app", Rule::HeatBath),
        "app-metropolis" => ("app", Rule::Metropolis),
        "scalar-heat-bath" => ("scalar", Rule::HeatBath),
        "scalar-metropolis" => ("scalar", Rule::Metropolis),
        other => panic!("unknown kernel {other}"),
    };
    let energy = if kind == "lanes" {
        let mut sampler = CheckerboardLanes::new(lattice, CRITICAL_TEMPERATURE, rule, 1).unwrap();
        sampler.run(sweeps);
        sampler.energy()
    } else {
        let mut sampler = LatticeSampler::new(lattice, CRITICAL_TEMPERATURE, 1).unwrap();
        sampler.set_dynamics(Dynamics::Single(rule)).unwrap();
        sampler.set_order(Order::Checkerboard);
        sampler.set_lanes(kind == "app");
        for _ in 0..sweeps * n / (1 << 16) {
            sampler.run(1 << 16);
        }
        sampler.energy()
    };
    println!("{kernel}: {sweeps} sweeps, E = {energy}");
}
