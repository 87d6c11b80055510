//! Scenario files: a TOML description of a run that reads like the setup
//! section of a paper, validated into [`SimConfig`]s.
//!
//! ```no_run
//! # use manetlab::scenario::Scenario;
//! # use std::path::Path;
//! let sc = Scenario::load(Path::new("scenarios/default.toml"), &["mac.data_rate=2Mbps"])?;
//! for seed in sc.seeds() {
//!     let cfg = sc.config(seed);
//!     // run cfg ...
//! #   let _ = cfg;
//! }
//! # Ok::<(), manetlab::scenario::ScenarioError>(())
//! ```
//!
//! The format is documented key by key in `docs/scenario.md`. Errors carry the
//! file, line and column (or the `--set` override at fault) and say what is
//! allowed; no input makes parsing panic.

mod bounds;
mod build;
pub mod defaults;
mod error;
mod file;
pub mod input;
mod order;
pub mod physics;
pub mod profile;
mod source;
pub mod sweep;
pub mod units;

pub use bounds::{Bound, BOUNDS, MAX_NODES, MAX_STATIC_NODES};
pub use error::{ErrorKind, ScenarioError};
pub use profile::{Profile, Selection};

use crate::config::{Position, SimConfig};
use crate::metrics::trace::TraceOptions;
use crate::sim::{Purpose, RngStream, Time};
use build::{MobilityPlan, Topology};
use error::{At, Diag};
use source::Source;
use std::path::{Path, PathBuf};

/// A checked scenario file (with any overrides applied).
///
/// [`Scenario::config`] gives the run for one seed; replications use seeds
/// `seed()`, `seed() + 1`, ... ([`Scenario::seeds`]).
#[derive(Clone, Debug)]
pub struct Scenario {
    /// `run.name`, or the file name without its extension.
    pub name: String,
    /// `run.replications` (at least 1).
    pub replications: u32,
    /// `output.dir`, as written (relative paths are relative to the working
    /// directory, not to the scenario file).
    pub output_dir: Option<PathBuf>,
    /// `output.trace` and `output.pcap`: the trace files a run should write
    /// (give them to [`crate::metrics::trace::open`]). Off by default.
    pub trace: TraceOptions,
    /// `output.viz`: write the browser viewer (off by default).
    pub viz: bool,
    /// `output.viz_window`, `viz_decimate`, `viz_sensed`: what the viewer
    /// records (give them to [`crate::metrics::viz::VizRecorder`]).
    pub viz_options: crate::metrics::viz::VizOptions,
    /// Things the file says that are valid but probably not meant (random
    /// waypoint with a minimum speed of 0, no warm-up...), one sentence each.
    pub warnings: Vec<String>,
    /// `[sweep]` axes and `[sweep.zip]` groups (empty: a single point).
    /// See [`sweep`].
    pub sweep: sweep::SweepSpec,
    /// `run.profile` (or the one a [`Selection`] imposed): whose defaults
    /// the keys the file leaves out take (`scenario/profile.rs`).
    pub profile: Profile,
    seed: u64,
    base: SimConfig,
    topology: Topology,
    mobility: MobilityPlan,
    generators: Vec<build::generate::FlowGenerator>,
    effective: String,
    origin: String,
    /// The key families the scenario's models refuse, recorded while it was
    /// checked (`defaults.rs`'s [`defaults::Unused`]), when it was parsed
    /// without a profile selection (`None` otherwise): `scenario.resolved.toml`
    /// starts its search from them instead of parsing the scenario again.
    unused: Option<Vec<defaults::Unused>>,
}

impl Scenario {
    /// Reads and checks a scenario file.
    pub fn from_path(path: &Path) -> Result<Scenario, ScenarioError> {
        Scenario::load(path, &[] as &[&str])
    }

    /// Checks scenario text; `origin` names it in error messages.
    pub fn from_str(text: &str, origin: &str) -> Result<Scenario, ScenarioError> {
        Scenario::parse(text, origin, &[] as &[&str])
    }

    /// Reads a scenario file and applies `--set key=value` overrides in order
    /// (see [`Scenario::parse`]).
    pub fn load<S: AsRef<str>>(path: &Path, overrides: &[S]) -> Result<Scenario, ScenarioError> {
        Scenario::load_selected(path, overrides, &Selection::default())
    }

    /// [`Scenario::load`] with the profile rows of `sel` (the base profile
    /// replaces `run.profile` when given; `manetlab explain` switches rows).
    pub fn load_selected<S: AsRef<str>>(
        path: &Path,
        overrides: &[S],
        sel: &Selection,
    ) -> Result<Scenario, ScenarioError> {
        let origin = path.display().to_string();
        let bytes = input::read_limited(path, input::MAX_SCENARIO_BYTES).map_err(|e| ScenarioError {
            kind: ErrorKind::Io,
            origin: origin.clone(),
            position: None,
            override_arg: None,
            message: format!("cannot read the scenario file: {e}"),
        })?;
        match String::from_utf8(bytes) {
            Ok(text) => Scenario::parse_selected(&text, &origin, overrides, sel),
            Err(e) => {
                let valid = e.utf8_error().valid_up_to();
                let text = String::from_utf8_lossy(&e.as_bytes()[..valid]).into_owned();
                let src = Source::new(&origin, &text);
                Err(src.error(Diag::new(ErrorKind::Syntax, At::Offset(valid), "the file is not valid UTF-8 text")))
            }
        }
    }

    /// Checks scenario text after applying `--set key=value` overrides.
    ///
    /// A key is a dotted path: `mac.data_rate`, `run.duration`,
    /// `topology.nodes`, `flow.0.rate` (flows numbered from 0 in file order),
    /// `flow.*.rate` (every flow). The value is read as a TOML value (`5`,
    /// `true`, `[[2, 1, 0]]`, `"text"`) and otherwise taken as a string
    /// (`11Mbps`, `20s`). Keys absent from the file are added. Errors caused
    /// by an override name it: `x.toml: --set mac.data_rate=3Mbps: ...`.
    pub fn parse<S: AsRef<str>>(text: &str, origin: &str, overrides: &[S]) -> Result<Scenario, ScenarioError> {
        Scenario::parse_selected(text, origin, overrides, &Selection::default())
    }

    /// [`Scenario::parse`] with the profile rows of `sel`. The profile's
    /// defaults are written after the overrides, only where the text has
    /// no such key, so explicit keys always win.
    pub fn parse_selected<S: AsRef<str>>(
        text: &str,
        origin: &str,
        overrides: &[S],
        sel: &Selection,
    ) -> Result<Scenario, ScenarioError> {
        // Every parse records the key families its models refuse (a few
        // strings; `defaults.rs` reads them instead of parsing it again).
        let outer = defaults::start_recording();
        let parsed = Scenario::parse_checked(text, origin, overrides, sel);
        let unused = defaults::stop_recording(outer);
        let plain = sel.base.is_none() && sel.rows.is_empty();
        parsed.map(|s| Scenario { unused: plain.then_some(unused), ..s })
    }

    fn parse_checked<S: AsRef<str>>(
        text: &str,
        origin: &str,
        overrides: &[S],
        sel: &Selection,
    ) -> Result<Scenario, ScenarioError> {
        let mut src = Source::new(origin, text);
        // Syntax errors are reported against the file before any override.
        let first = match toml_edit::ImDocument::parse(text) {
            Ok(d) => d,
            Err(e) => return Err(src.error(source::describe_syntax_error(&e))),
        };
        for o in overrides {
            if let Err(d) = src.apply_override(o.as_ref()) {
                return Err(src.error(d));
            }
        }
        if let Some(p) = sel.base {
            // The imposed profile is also what the effective text records.
            if let Err(d) = src.apply_override(&format!("run.profile=\"{p}\"")) {
                return Err(src.error(d));
            }
        }
        // The text is parsed once unless an override or the profile changes
        // it (`scenario.resolved.toml` parses ~100 variants of a scenario,
        // `scenario/defaults.rs`; each parse was 4 TOML parses).
        let unchanged = src.text == text;
        let profile = profile::apply(&mut src, sel, unchanged.then_some(&first)).map_err(|d| src.error(d))?;
        let doc = if src.text == text {
            first
        } else {
            toml_edit::ImDocument::parse(src.text.as_str()).map_err(|e| src.error(source::describe_syntax_error(&e)))?
        };
        // `toml::from_str` is this deserializer on a fresh parse of the same
        // text (toml 0.8); its error is the one reported.
        let parsed: file::ScenarioFile =
            match serde::Deserialize::deserialize(toml_edit::de::Deserializer::from(doc.clone())) {
                Ok(p) => p,
                Err(_) => {
                    toml::from_str(&src.text).map_err(|e| src.error(source::describe_de_error(doc.as_table(), &e)))?
                }
            };
        bounds::check(doc.as_table()).map_err(|d| src.error(d))?;
        let base_dir = Path::new(origin).parent().unwrap_or(Path::new("."));
        input::check_paths(doc.as_table(), base_dir).map_err(|d| src.error(d))?;
        let plan = build::build(&parsed, doc.as_table(), base_dir).map_err(|d| src.error(d))?;
        let name = plan.name.unwrap_or_else(|| {
            Path::new(origin).file_stem().map_or_else(|| origin.to_string(), |s| s.to_string_lossy().into_owned())
        });
        let mut sweep = plan.sweep;
        sweep.positions = sweep
            .offsets
            .iter()
            .filter_map(|(k, o)| {
                src.error(Diag::new(ErrorKind::BadValue, At::Offset(*o), "")).position.map(|p| (k.clone(), p))
            })
            .collect();
        Ok(Scenario {
            name,
            replications: plan.replications,
            output_dir: plan.output_dir.map(PathBuf::from),
            trace: plan.trace,
            viz: plan.viz,
            viz_options: plan.viz_options,
            sweep,
            warnings: plan.warnings,
            profile,
            seed: plan.seed,
            base: plan.base,
            topology: plan.topology,
            mobility: plan.mobility,
            generators: plan.generators,
            effective: src.text.clone(),
            origin: origin.to_string(),
            unused: None,
        })
    }

    /// The name the scenario was loaded under (its path, or the origin given
    /// to [`Scenario::from_str`]): errors name it, relative paths in it are
    /// relative to its directory.
    pub fn origin(&self) -> &str {
        &self.origin
    }

    /// The key families this scenario's models refuse, if it was parsed
    /// without a profile selection ([`defaults::fill_from_loaded`]).
    pub(crate) fn unused(&self) -> Option<&[defaults::Unused]> {
        self.unused.as_deref()
    }

    /// `run.seed`: the seed of the first replication.
    pub fn seed(&self) -> u64 {
        self.seed
    }

    /// How many nodes every replication has (without building a run).
    pub fn node_count(&self) -> usize {
        match &self.topology {
            Topology::Fixed(p) => p.len(),
            Topology::Random { nodes, .. } => *nodes as usize,
        }
    }

    /// `run.duration`.
    pub fn duration(&self) -> Time {
        self.base.duration
    }

    /// How many flows every replication has (without building a run).
    pub fn flow_count(&self) -> usize {
        self.base.flows.len() + self.generators.iter().map(|g| g.count()).sum::<usize>()
    }

    /// The seeds of all replications: `seed`, `seed + 1`, ... (`replications` of them).
    pub fn seeds(&self) -> impl Iterator<Item = u64> + '_ {
        (0..self.replications as u64).map(|i| self.seed.wrapping_add(i))
    }

    /// The scenario text with overrides applied, as it was checked (worth
    /// saving next to results).
    pub fn effective_toml(&self) -> &str {
        &self.effective
    }

    /// The full run for one replication's seed. A pure function of the
    /// scenario and `seed`: random topologies draw node `i`'s position from
    /// the stream (seed, entity `i`, `Purpose::Placement`).
    pub fn config(&self, seed: u64) -> SimConfig {
        let mut cfg = self.base.clone();
        cfg.seed = seed;
        // Generated flows are drawn from `run.seed` (or the generator's
        // own `seed`), the same in every replication, so each flow is one
        // row of the sweep and replication tables.
        for g in &self.generators {
            cfg.flows.extend(g.expand(self.seed));
        }
        cfg.nodes = match &self.topology {
            Topology::Fixed(p) => p.clone(),
            Topology::Random { nodes, width, height, .. } => (0..*nodes as u64)
                .map(|i| {
                    let mut rng = RngStream::new(seed, i, Purpose::Placement, 0);
                    let x = rng.range_f64(0.0, *width);
                    let y = rng.range_f64(0.0, *height);
                    Position::new(x, y)
                })
                .collect(),
        };
        let trajectories = match &self.mobility {
            MobilityPlan::Static => None,
            MobilityPlan::Script(s) => Some(s.trajectories(&cfg.nodes)),
            MobilityPlan::RandomWaypoint(m) => {
                Some(crate::mobility::waypoint::trajectories(m, cfg.nodes.len(), seed, cfg.duration))
            }
            MobilityPlan::Model(m) => Some(m.trajectories(cfg.nodes.len(), seed, cfg.duration)),
            MobilityPlan::Pattern { width, height, pause, mean_speed, pattern } => {
                Some(crate::mobility::waypoint::pattern(
                    *width,
                    *height,
                    *pause,
                    cfg.nodes.len(),
                    pattern.unwrap_or(seed),
                    *mean_speed,
                    cfg.duration,
                ))
            }
        };
        let mut trajectories = trajectories;
        if let Some(t) = &trajectories {
            cfg.nodes = t.iter().map(|t| t.position(Time::ZERO)).collect();
        }
        // `[topology] order = "hilbert"`: renumber the nodes along the curve
        // by their positions at t = 0 (`order.rs`; the check refuses it with
        // scripted movement, whose node ids are the file's).
        if let Topology::Random { width, height, order: order::NodeOrder::Hilbert, .. } = &self.topology {
            let perm = order::hilbert_permutation(&cfg.nodes, *width, *height);
            cfg.nodes = order::permute(std::mem::take(&mut cfg.nodes), &perm);
            trajectories = match (&self.mobility, trajectories) {
                // Random waypoint: the same paths generated again in curve
                // order, so that each node's leg source is allocated next
                // to its neighbours' (visited out of allocation order, their
                // first loads missed the cache: the build took 1.7x).
                (MobilityPlan::RandomWaypoint(m), Some(_)) => Some(
                    perm.iter()
                        .map(|&i| crate::mobility::waypoint::generated(m, seed, i as u64, 0, cfg.duration))
                        .collect(),
                ),
                (_, t) => t.map(|t| order::permute(t, &perm)),
            };
        }
        if let Some(t) = trajectories {
            cfg.mobility = crate::mobility::MobilityConfig::Trajectories(t);
        }
        cfg
    }
}

#[cfg(test)]
mod tests;
