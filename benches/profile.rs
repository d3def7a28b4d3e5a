//! One kernel on a 1024×1024 periodic lattice at T_c for a few sweeps, to be counted by
//! callgrind (instructions per tick, reliable on a loaded machine):
//!
//! ```text
//! cargo bench --bench profile --no-run
//! valgrind --tool=callgrind target/release/deps/profile-* lanes-heat-bath 4
//! ```
//!
//! Kernels: `lanes-heat-bath`, `lanes-metropolis`, `scalar-heat-bath`, `scalar-metropolis`
//! (checkerboard order). Subtract a run with 0 sweeps to remove the set-up cost.

use boltzlab::dynamics::lanes::CheckerboardLanes;
use boltzlab::exact::CRITICAL_TEMPERATURE;
use boltzlab::{Dynamics, Lattice, LatticeSampler, Order, Rule};

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let kernel = args.get(1).map_or("lanes-heat-bath", String::as_str);
    let sweeps: u64 = args.get(2).map_or(4, |s| s.parse().expect("sweeps"));
    let lattice = Lattice::square(1024).unwrap();
    let n = lattice.len() as u64;
    let (lanes, rule) = match kernel {
        "lanes-heat-bath" => (true, Rule::HeatBath),
        "lanes-metropolis" => (true, Rule::Metropolis),
        "scalar-heat-bath" => (false, Rule::HeatBath),
        "scalar-metropolis" => (false, Rule::Metropolis),
        other => panic!("unknown kernel {other}"),
    };
    let energy = if lanes {
        let mut sampler = CheckerboardLanes::new(lattice, CRITICAL_TEMPERATURE, rule, 1).unwrap();
        sampler.run(sweeps);
        sampler.energy()
    } else {
        let mut sampler = LatticeSampler::new(lattice, CRITICAL_TEMPERATURE, 1).unwrap();
        sampler.set_dynamics(Dynamics::Single(rule)).unwrap();
        sampler.set_order(Order::Checkerboard);
        sampler.run(sweeps * n);
        sampler.energy()
    };
    println!("{kernel}: {sweeps} sweeps, E = {energy}");
}
