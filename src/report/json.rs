//! The canonical JSON document: the whole [`Simulation`], exact decimals as strings.

use crate::engine::Simulation;

/// The simulation as pretty JSON, ending with a newline.
pub fn render(sim: &Simulation) -> Vec<u8> {
    let mut out = serde_json::to_vec_pretty(sim).expect("a simulation always serializes");
    out.push(b'\n');
    out
}
