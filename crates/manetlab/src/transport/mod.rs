//! Transport layer endpoints.

pub mod tcp;
