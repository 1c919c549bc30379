//! The integration tests of calibscope-core, one test binary (each module was its own
//! binary: one link each in the test command).
//! Run one module with `cargo test -p calibscope-core --test core <module>::`.

mod audit_orders;
mod beta_refs;
mod bootstrap_blocks;
mod dirichlet_peers;
mod fast_audit;
mod lab_paper;
mod lab_repro;
mod oracles;
mod properties;
mod recal_fixtures;
mod recal_peers;
mod recal_props;
#[allow(dead_code)] // each module uses part of it
mod recal_support;
mod section8_oracles;
mod section8_peers;
mod synthetic_moments;
mod truthfulness;
mod undefined_edges;
mod validate;
mod vectors;
