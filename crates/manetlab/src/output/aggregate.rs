//! Statistics over replications, one naming everywhere: for a metric `m`,
//! `m_n` (how many runs had a value), `m_mean`, `m_sd` (sample standard
//! deviation, n − 1) and `m_ci95` (half-width of the Student-t 95 %
//! confidence interval of the mean). Null values (undefined in a run: the
//! delay of a flow that delivered nothing) are left out, never counted as
//! 0; the mean of no values is null, and sd and ci95 of one value are null.

use super::table::{Column, Kind, Table, Value};
use crate::metrics::stats::Summary;

/// The four statistics of one metric over runs.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Stat {
    pub n: u64,
    pub mean: Option<f64>,
    pub sd: Option<f64>,
    pub ci95: Option<f64>,
}

impl Stat {
    /// Over the defined values (None and non-finite values are skipped).
    pub fn of(values: impl IntoIterator<Item = Option<f64>>) -> Stat {
        let s: Summary = values.into_iter().flatten().filter(|x| x.is_finite()).collect();
        let v = s.values();
        Stat { n: v.count, mean: v.mean, sd: v.std_dev, ci95: v.ci95_half_width }
    }
}

/// The suffixes of the statistic columns, in order.
pub const STAT_SUFFIXES: [&str; 4] = ["n", "mean", "sd", "ci95"];

/// The four columns of metric column `c`.
pub fn stat_columns(c: &Column) -> [Column; 4] {
    [
        Column::new(format!("{}_n", c.name), "", Kind::U64, format!("runs in which {} is defined", c.name)),
        Column::new(format!("{}_mean", c.name), &c.unit, Kind::F64, format!("mean over runs of {}", c.name)),
        Column::new(
            format!("{}_sd", c.name),
            &c.unit,
            Kind::F64,
            format!("sample standard deviation over runs of {} (null for n < 2)", c.name),
        ),
        Column::new(
            format!("{}_ci95", c.name),
            &c.unit,
            Kind::F64,
            format!("95% confidence half-width (Student t) of the mean of {} (null for n < 2)", c.name),
        ),
    ]
}

/// Groups the rows of `runs` by the `keys` columns (groups in order of
/// first appearance) and summarises each of the `values` columns over the
/// rows of a group. Columns: the keys, `runs` (rows in the group), then
/// per value column its `_n`, `_mean`, `_sd`, `_ci95`.
pub fn aggregate(name: &str, runs: &Table, keys: &[&str], values: &[&str]) -> Table {
    let ki: Vec<usize> = keys.iter().map(|k| runs.index(k).unwrap_or_else(|| panic!("no key column {k}"))).collect();
    let vi: Vec<usize> =
        values.iter().map(|k| runs.index(k).unwrap_or_else(|| panic!("no value column {k}"))).collect();
    let mut columns: Vec<Column> = ki.iter().map(|&i| runs.columns[i].clone()).collect();
    columns.push(Column::new("runs", "", Kind::U64, "replications (rows) summarised in this row"));
    for &i in &vi {
        columns.extend(stat_columns(&runs.columns[i]));
    }
    let mut out = Table::new(name, columns);
    // Groups in first-appearance order; a linear search per row is fine at
    // output time (tables have at most thousands of rows).
    let mut groups: Vec<(Vec<Value>, Vec<usize>)> = Vec::new();
    for (r, row) in runs.rows.iter().enumerate() {
        let key: Vec<Value> = ki.iter().map(|&i| row[i].clone()).collect();
        match groups.iter_mut().find(|(k, _)| *k == key) {
            Some((_, rows)) => rows.push(r),
            None => groups.push((key, vec![r])),
        }
    }
    for (key, rows) in groups {
        let mut row = key;
        row.push(Value::U64(rows.len() as u64));
        for &i in &vi {
            let s = Stat::of(rows.iter().map(|&r| runs.rows[r][i].as_f64()));
            row.extend([Value::U64(s.n), Value::opt(s.mean), Value::opt(s.sd), Value::opt(s.ci95)]);
        }
        out.push(row);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nulls_stay_out_of_the_mean_and_one_value_has_no_spread() {
        let mut t = Table::new(
            "runs",
            vec![Column::new("flow", "", Kind::Str, ""), Column::new("delay_mean_s", "s", Kind::F64, "")],
        );
        for (f, d) in [("a", Some(0.2)), ("a", None), ("a", Some(0.4)), ("b", None), ("c", Some(1.0))] {
            t.push(vec![Value::s(f), Value::opt(d)]);
        }
        let a = aggregate("agg", &t, &["flow"], &["delay_mean_s"]);
        assert_eq!(
            a.column_names(),
            ["flow", "runs", "delay_mean_s_n", "delay_mean_s_mean", "delay_mean_s_sd", "delay_mean_s_ci95"]
        );
        let r = &a.rows[0];
        assert_eq!(r[1], Value::U64(3));
        assert_eq!(r[2], Value::U64(2));
        assert!(matches!(r[3], Value::F64(m) if (m - 0.3).abs() < 1e-15), "{r:?}");
        // sd of {0.2, 0.4} = 0.1414..., ci95 = t(1) * sd / sqrt 2 = 12.706 * 0.1
        assert!(matches!(r[4], Value::F64(s) if (s - 0.02f64.sqrt()).abs() < 1e-12), "{r:?}");
        assert!(matches!(r[5], Value::F64(c) if (c - 12.706204736 * 0.1).abs() < 1e-6), "{r:?}");
        // b: nothing defined: n = 0, everything else null.
        assert_eq!(a.rows[1][2..], [Value::U64(0), Value::Null, Value::Null, Value::Null]);
        // c: one value: mean defined, spread null.
        assert_eq!(a.rows[2][2..], [Value::U64(1), Value::F64(1.0), Value::Null, Value::Null]);
    }
}
