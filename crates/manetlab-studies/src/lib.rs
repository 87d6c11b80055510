//! The paper reproductions, each a [`Study`](manetlab::study::Study): it
//! plans its runs, analyses their outcomes into findings and checks of the
//! published claims, and writes a report with the published numbers beside
//! ours (through the library's experiment kit, `manetlab::study`).
//!
//! Published numbers are data, with their source, in `data/published/`.
//! Adding a study: one file here implementing `Study` (copy the shape of
//! `zaini.rs`, the smallest) and one line in [`STUDIES`].

pub mod chain;
pub mod gupta;
pub mod holland;
pub mod kim;
pub mod mrc;
pub mod testbed;
pub mod zaini;

use manetlab::study::{AnyStudy, StudyInfo};
pub use manetlab::study::{Progress, StudyError, StudyOptions, StudyOutput};

/// Every study this crate knows, in the order `manetlab study --list` shows.
pub static STUDIES: &[&dyn AnyStudy] =
    &[&chain::Chain, &holland::Holland, &gupta::Gupta, &zaini::Zaini, &testbed::Testbed, &kim::Kim, &mrc::Mrc];

/// What each study is (name, paper, one line).
pub fn list() -> Vec<StudyInfo> {
    STUDIES.iter().map(|s| s.info()).collect()
}

/// Runs study `name`.
pub fn run(name: &str, opts: &StudyOptions, progress: Progress) -> Result<StudyOutput, StudyError> {
    manetlab::study::run_named(STUDIES, name, opts, progress)
}
