use super::*;

#[test]
fn lists_and_ranges() {
    let a = SweepAxis::parse("mac.data_rate=1Mbps, 2Mbps,11Mbps").unwrap();
    assert_eq!(a.key, "mac.data_rate");
    assert_eq!(a.values, ["1Mbps", "2Mbps", "11Mbps"]);
    let r = SweepAxis::parse("flow.0.interval=10ms..50ms:10ms").unwrap();
    assert_eq!(r.values, ["10ms", "20ms", "30ms", "40ms", "50ms"]);
    let f = SweepAxis::parse("x=0.1..0.5:0.1").unwrap();
    assert_eq!(f.values, ["0.1", "0.2", "0.3", "0.4", "0.5"]);
    let s = SweepAxis::parse("x=2..10:3").unwrap();
    assert_eq!(s.values, ["2", "5", "8"]);
}

#[test]
fn list_points_on_the_command_line() {
    let a = SweepAxis::parse(r#"mobility.speed=[["0.1m/s","5m/s"],["0.1m/s","20m/s"]]"#).unwrap();
    assert_eq!(a.values, [r#"["0.1m/s", "5m/s"]"#, r#"["0.1m/s", "20m/s"]"#]);
    let b = SweepAxis::parse("x=[1, 2.5, \"3s\"]").unwrap();
    assert_eq!(b.values, ["1", "2.5", "3s"]);
    assert!(SweepAxis::parse("x=[]").unwrap_err().contains("empty"));
    assert!(SweepAxis::parse("x=[1,").unwrap_err().contains("not a TOML array"));
}

#[test]
fn a_value_with_dots_is_not_a_range() {
    // Reliability issue, minor: `..` inside a value (a path) is not a range.
    let a = SweepAxis::parse("mobility.file=../a.mv,../b.mv").unwrap();
    assert_eq!(a.values, ["../a.mv", "../b.mv"]);
    let b = SweepAxis::parse("mobility.file=../a.mv").unwrap();
    assert_eq!(b.values, ["../a.mv"]);
}

#[test]
fn bad_axes_say_why() {
    assert!(SweepAxis::parse("novalue").unwrap_err().contains("expected key="));
    assert!(SweepAxis::parse("x=1..5").unwrap_err().contains("needs a step"));
    assert!(SweepAxis::parse("x=1s..5ms:1s").unwrap_err().contains("same unit"));
    assert!(SweepAxis::parse("x=5..1:1").unwrap_err().contains("empty"));
    assert!(SweepAxis::parse("x=1..5:0").unwrap_err().contains("positive"));
    assert!(SweepAxis::parse("x=0..1:0.00001").unwrap_err().contains("at most"));
    assert!(SweepAxis::parse("x=a,,b").unwrap_err().contains("empty value"));
    assert!(SweepAxis::parse("x=1,2,1").unwrap_err().contains("listed twice"));
}

#[test]
fn a_huge_range_is_refused_not_empty() {
    // D10: 1e20 values used to wrap to an empty sweep.
    assert!(SweepAxis::parse("mac.cw_min=0..1:1e-300").unwrap_err().contains("at most"));
    let t: toml::Table = toml::from_str("a = { from = 0, to = 1e20, step = 1 }").unwrap();
    assert!(SweepAxis::from_toml("a", &t["a"]).unwrap_err().contains("at most"));
}

#[test]
fn toml_axes() {
    let t: toml::Table = toml::from_str(
        "a = [1, 2.5, \"3s\", true]\nb = { from = \"1s\", to = \"3s\", step = \"1s\" }\nc = []\nd = { from = 1, to = 2 }\ne = 5\nf = [[\"1m\", \"2m\"], [\"1m\", \"3m\"]]\ng = [1, 1]",
    )
    .unwrap();
    assert_eq!(SweepAxis::from_toml("a", &t["a"]).unwrap().values, ["1", "2.5", "3s", "true"]);
    assert_eq!(SweepAxis::from_toml("b", &t["b"]).unwrap().values, ["1s", "2s", "3s"]);
    assert!(SweepAxis::from_toml("c", &t["c"]).is_err());
    assert!(SweepAxis::from_toml("d", &t["d"]).unwrap_err().contains("'step'"));
    assert!(SweepAxis::from_toml("e", &t["e"]).is_err());
    assert_eq!(SweepAxis::from_toml("f", &t["f"]).unwrap().values, [r#"["1m", "2m"]"#, r#"["1m", "3m"]"#]);
    assert!(SweepAxis::from_toml("g", &t["g"]).unwrap_err().contains("twice"));
}

#[test]
fn points_are_the_product_first_axis_slowest() {
    let axes = [SweepAxis::parse("a=1,2").unwrap(), SweepAxis::parse("b=x,y,z").unwrap()];
    let p = points(&axes);
    assert_eq!(p.len(), 6);
    assert_eq!(label(&p[0]), "a=1,b=x");
    assert_eq!(label(&p[1]), "a=1,b=y");
    assert_eq!(label(&p[5]), "a=2,b=z");
    assert_eq!(points(&[]), vec![Vec::<(String, String)>::new()]);
    let m = merge(&SweepSpec::from(axes.to_vec()), &[SweepAxis::parse("a=7").unwrap()]).unwrap();
    assert_eq!(m.iter().map(|a| a.key.as_str()).collect::<Vec<_>>(), ["b", "a"]);
}

#[test]
fn zipped_axes_advance_together_and_combine_with_the_others() {
    let mut s = SweepSpec::zip(vec![
        SweepAxis::parse("topology.nodes=50,100,200").unwrap(),
        SweepAxis::parse("x=a,b,c").unwrap(),
    ])
    .unwrap();
    assert_eq!(s.points().len(), 3);
    assert_eq!(label(&s.points()[1]), "topology.nodes=100,x=b");
    s = s.merge(&[SweepAxis::parse("r=1,2").unwrap()]).unwrap();
    let p = s.points();
    assert_eq!(p.len(), 6);
    assert_eq!(label(&p[5]), "topology.nodes=200,x=c,r=2");
    // Unequal lengths and repeated keys are refused.
    let e = SweepSpec::zip(vec![SweepAxis::parse("a=1,2").unwrap(), SweepAxis::parse("b=1,2,3").unwrap()]);
    assert!(e.unwrap_err().contains("same number of points"));
    let ax = |k: &str, v: &[&str]| SweepAxis { key: k.into(), values: v.iter().map(|s| s.to_string()).collect() };
    let e = SweepSpec::zip(vec![ax("a", &["1", "1"]), ax("b", &["2", "2"])]);
    assert!(e.is_err());
    // A command-line axis replaces a zipped one; the rest of the group stays.
    let m = s.merge(&[SweepAxis::parse("x=q").unwrap()]).unwrap();
    assert_eq!(m.points().len(), 6);
}

#[test]
fn one_key_twice_on_the_command_line_is_refused() {
    // D11: the second --sweep used to run while the first labelled.
    let a = SweepAxis::parse("mac.data_rate=2Mbps,11Mbps").unwrap();
    let b = SweepAxis::parse("mac.data_rate=1Mbps").unwrap();
    assert!(SweepSpec::default().merge(&[a, b]).unwrap_err().contains("swept twice"));
}

#[test]
fn too_many_points_are_refused() {
    let big = SweepAxis::parse("a=0..9999:1").unwrap();
    let e = SweepSpec::default().merge(&[big.clone(), SweepAxis { key: "b".into(), ..big }]);
    assert!(e.unwrap_err().contains("at most"));
}
