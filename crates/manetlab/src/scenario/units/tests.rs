use super::*;
use proptest::prelude::*;

fn d(s: &str) -> f64 {
    s.parse::<Distance>().unwrap().0
}
fn t(s: &str) -> u64 {
    s.parse::<Duration>().unwrap().0.as_ns()
}
fn r(s: &str) -> u64 {
    s.parse::<DataRate>().unwrap().0
}
fn b(s: &str) -> u32 {
    s.parse::<Size>().unwrap().0
}

#[test]
fn distances() {
    assert_eq!(d("250m"), 250.0);
    assert_eq!(d("1.5km"), 1500.0);
    assert_eq!(d("30cm"), 0.3);
    assert_eq!(d(" 250 m "), 250.0);
    assert_eq!(d("0m"), 0.0);
    assert_eq!(d("2.5e2m"), 250.0);
    let e = "250".parse::<Distance>().unwrap_err().0;
    assert_eq!(e, r#"expected a distance such as "250m" or "1.5km" (units: m, km, cm, mm), got "250""#);
    assert!("-5m".parse::<Distance>().unwrap_err().0.contains("must not be negative"));
    assert!("250mi".parse::<Distance>().unwrap_err().0.contains("units: m, km"));
    for bad in ["", "m", "inf m", "NaNm", "infm", ".m", "1e999m", "--1m", "1..2m"] {
        assert!(bad.parse::<Distance>().is_err(), "{bad}");
    }
}

#[test]
fn times() {
    assert_eq!(t("10s"), 10_000_000_000);
    assert_eq!(t("1.5s"), 1_500_000_000);
    assert_eq!(t("200ms"), 200_000_000);
    assert_eq!(t("20us"), 20_000);
    assert_eq!(t("20µs"), 20_000);
    assert_eq!(t("500ns"), 500);
    assert_eq!(t("2min"), 120_000_000_000);
    assert_eq!(t("0.1s"), 100_000_000);
    assert_eq!(t("1.4ns"), 1);
    assert_eq!(t("1.5ns"), 2);
    assert_eq!(t("0.4ns"), 0);
    assert_eq!(t("1e-9s"), 1);
    assert_eq!(t("123456.123456789s"), 123_456_123_456_789);
    assert_eq!(t("1000000s"), 1_000_000_000_000_000);
    assert!("1000000.000000001s".parse::<Duration>().unwrap_err().0.contains("at most \"1000000s\""));
    assert!("18446744073s".parse::<Duration>().unwrap_err().0.contains("at most"));
    assert!("10".parse::<Duration>().unwrap_err().0.contains("units: ns, us, ms, s, min, h"));
    assert!("-1s".parse::<Duration>().unwrap_err().0.contains("must not be negative"));
    assert!("1e30s".parse::<Duration>().unwrap_err().0.contains("too large"));
    assert!("1e-9000s".parse::<Duration>().is_ok());
}

#[test]
fn rates_below_one_bit_per_second_say_so() {
    let e = "1e-9bps".parse::<DataRate>().unwrap_err().0;
    assert!(e.contains("at least \"1bps\""), "{e}");
    assert!("0bps".parse::<DataRate>().unwrap_err().0.contains("greater than zero"));
}

#[test]
fn rates() {
    assert_eq!(r("2Mbps"), 2_000_000);
    assert_eq!(r("11Mbps"), 11_000_000);
    assert_eq!(r("5.5Mbps"), 5_500_000);
    assert_eq!(r("800kbps"), 800_000);
    assert_eq!(r("800KBps"), 6_400_000);
    assert_eq!(r("800KB/s"), 6_400_000);
    assert_eq!(r("1Gbps"), 1_000_000_000);
    assert_eq!(r("64000bps"), 64_000);
    assert_eq!(r("2Mbit/s"), 2_000_000);
    assert!("0Mbps".parse::<DataRate>().unwrap_err().0.contains("greater than zero"));
    assert!("2mbps".parse::<DataRate>().is_err());
    assert!("2M".parse::<DataRate>().is_err());
}

#[test]
fn sizes() {
    assert_eq!(b("1460B"), 1460);
    assert_eq!(b("1.5KB"), 1500);
    assert_eq!(b("1.5kB"), 1500);
    assert_eq!(b("1KiB"), 1024);
    assert_eq!(b("512B"), 512);
    assert_eq!(b("0B"), 0);
    assert!("1.5B".parse::<Size>().unwrap_err().0.contains("whole number of bytes"));
    assert!("5GB".parse::<Size>().is_err());
    assert!("1470".parse::<Size>().unwrap_err().0.contains("units: B"));
    assert!("5000MB".parse::<Size>().unwrap_err().0.contains("too large"));
}

#[test]
fn powers_ratios_frequencies() {
    assert_eq!("0.28183815W".parse::<Power>().unwrap().0, 0.28183815);
    assert!(("281.8mW".parse::<Power>().unwrap().0 - 0.2818).abs() < 1e-15);
    let p = "24.5dBm".parse::<Power>().unwrap().0;
    assert!((p - 0.281_838_293).abs() < 1e-8, "{p}");
    let p = "-64.37dBm".parse::<Power>().unwrap().0;
    assert!((p - 3.656e-10).abs() < 1e-12, "{p}");
    assert!("-1W".parse::<Power>().unwrap_err().0.contains("must not be negative"));
    assert!("0W".parse::<Power>().unwrap_err().0.contains("greater than zero"));
    assert_eq!("10dB".parse::<Ratio>().unwrap().0, 10.0);
    assert_eq!("0dB".parse::<Ratio>().unwrap().0, 1.0);
    assert_eq!("2.5".parse::<Ratio>().unwrap().0, 2.5);
    assert!("10x".parse::<Ratio>().is_err());
    assert_eq!("914MHz".parse::<Frequency>().unwrap().0, 914e6);
    assert_eq!("2.4GHz".parse::<Frequency>().unwrap().0, 2.4e9);
    assert!("914".parse::<Frequency>().is_err());
    assert_eq!("1.5m/s".parse::<Speed>().unwrap().0, 1.5);
    assert_eq!("36km/h".parse::<Speed>().unwrap().0, 10.0);
    assert_eq!("0m/s".parse::<Speed>().unwrap().0, 0.0);
    assert!("5".parse::<Speed>().is_err());
    assert!("-1m/s".parse::<Speed>().is_err());
    assert_eq!("-20m".parse::<Coord>().unwrap().0, -20.0);
    assert_eq!("off".parse::<RtsThreshold>().unwrap().0, None);
    assert_eq!("Off".parse::<RtsThreshold>().unwrap().0, None);
    assert_eq!("500B".parse::<RtsThreshold>().unwrap().0, Some(500));
    assert!("on".parse::<RtsThreshold>().unwrap_err().0.contains("\"off\""));
}

#[test]
fn display_examples() {
    assert_eq!(Duration(Time::from_ms(1500)).to_string(), "1.5s");
    assert_eq!(Duration(Time::from_secs(120)).to_string(), "2min");
    assert_eq!(Duration(Time::from_us(20)).to_string(), "20us");
    assert_eq!(Duration(Time::ZERO).to_string(), "0s");
    assert_eq!(DataRate(5_500_000).to_string(), "5.5Mbps");
    assert_eq!(DataRate(64_000).to_string(), "64kbps");
    assert_eq!(Size(1470).to_string(), "1470B");
    assert_eq!(RtsThreshold(None).to_string(), "off");
}

#[derive(serde::Deserialize, Debug)]
struct Probe {
    a: Option<Distance>,
    r: Option<Ratio>,
    c: Option<Coord>,
}

#[test]
fn deserialize_numbers_only_where_meaningful() {
    let p: Probe = toml::from_str("r = 3\nc = -2.5").unwrap();
    assert_eq!(p.r, Some(Ratio(3.0)));
    assert_eq!(p.c, Some(Coord(-2.5)));
    assert!(p.a.is_none());
    let e = toml::from_str::<Probe>("a = 250").unwrap_err();
    assert!(e.message().contains("got the bare number 250"), "{}", e.message());
    let e = toml::from_str::<Probe>("r = 0").unwrap_err();
    assert!(e.message().contains("greater than zero"), "{}", e.message());
    let e = toml::from_str::<Probe>("a = true").unwrap_err();
    assert!(e.message().contains("expected a distance"), "{}", e.message());
    let e = toml::from_str::<Probe>("r = nan").unwrap_err();
    assert!(e.message().contains("expected a ratio"), "{}", e.message());
}

proptest! {
    #[test]
    fn random_strings_never_panic(s in "\\PC{0,24}") {
        let _ = s.parse::<Distance>();
        let _ = s.parse::<Duration>();
        let _ = s.parse::<DataRate>();
        let _ = s.parse::<Size>();
        let _ = s.parse::<Power>();
        let _ = s.parse::<Ratio>();
        let _ = s.parse::<Frequency>();
        let _ = s.parse::<Coord>();
        let _ = s.parse::<RtsThreshold>();
    }

    #[test]
    fn numberish_strings_never_panic(s in "[-+]?[0-9]{0,40}(\\.[0-9]{0,40})?([eE][-+]?[0-9]{1,6})? ?(m|km|s|ms|ns|min|Mbps|KBps|B|KiB|W|dBm|dB|GHz)?") {
        let _ = s.parse::<Distance>();
        let _ = s.parse::<Duration>();
        let _ = s.parse::<DataRate>();
        let _ = s.parse::<Size>();
        let _ = s.parse::<Power>();
        let _ = s.parse::<Ratio>();
        let _ = s.parse::<Frequency>();
    }

    #[test]
    fn time_round_trips(ns in 0u64..=MAX_TIME.as_ns()) {
        let v = Duration(Time::from_ns(ns));
        prop_assert_eq!(v.to_string().parse::<Duration>().unwrap(), v);
    }

    #[test]
    fn rate_round_trips(bps in 1u64..=u64::MAX / 16) {
        let v = DataRate(bps);
        prop_assert_eq!(v.to_string().parse::<DataRate>().unwrap(), v);
    }

    #[test]
    fn size_round_trips(bytes in any::<u32>()) {
        let v = Size(bytes);
        prop_assert_eq!(v.to_string().parse::<Size>().unwrap(), v);
    }

    #[test]
    fn float_quantities_round_trip(x in 1e-12f64..1e12) {
        prop_assert_eq!(Distance(x).to_string().parse::<Distance>().unwrap(), Distance(x));
        prop_assert_eq!(Power(x).to_string().parse::<Power>().unwrap(), Power(x));
        prop_assert_eq!(Ratio(x).to_string().parse::<Ratio>().unwrap(), Ratio(x));
        prop_assert_eq!(Frequency(x).to_string().parse::<Frequency>().unwrap(), Frequency(x));
        prop_assert_eq!(Coord(-x).to_string().parse::<Coord>().unwrap(), Coord(-x));
    }

    #[test]
    fn scaled_units_agree(k in 0u64..1_000_000) {
        prop_assert_eq!(format!("{k}ms").parse::<Duration>().unwrap().0, Time::from_ms(k));
        prop_assert_eq!(format!("{k}kbps").parse::<DataRate>().ok().map(|r| r.0), (k > 0).then_some(k * 1000));
        prop_assert_eq!(format!("{k}KiB").parse::<Size>().unwrap().0 as u64, k * 1024);
    }
}
