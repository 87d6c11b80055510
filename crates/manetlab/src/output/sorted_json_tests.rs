//! [`super::to_string_pretty_sorted`] against what it replaces,
//! `serde_json::to_string_pretty(&serde_json::to_value(x))`, byte for byte.

use super::to_string_pretty_sorted;
use serde::Serialize;
use std::collections::{BTreeMap, HashMap};

fn through_value<T: Serialize>(x: &T) -> String {
    serde_json::to_string_pretty(&serde_json::to_value(x).unwrap()).unwrap()
}

fn same<T: Serialize>(x: &T) {
    assert_eq!(to_string_pretty_sorted(x).unwrap(), through_value(x));
}

#[derive(Serialize)]
struct Unit;

#[derive(Serialize)]
struct Newtype(f64);

#[derive(Serialize)]
struct Pair(u8, &'static str);

#[derive(Serialize)]
enum E {
    Plain,
    New(i32),
    Tuple(u8, Option<f64>),
    Fields { zeta: f32, alpha: Vec<u8>, mid: Unit },
}

#[derive(Serialize)]
struct Inner {
    z: Option<u64>,
    a: Vec<Vec<f64>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    skipped: Option<u8>,
    m: BTreeMap<String, E>,
    empty_map: HashMap<u32, u8>,
}

/// Empty containers and unit values of every kind.
type Empties = (Vec<u8>, Vec<Vec<u8>>, BTreeMap<String, u8>, Unit, ());

#[derive(Serialize)]
struct Outer {
    zz: &'static str,
    b: bool,
    #[serde(rename = "A")]
    upper: char,
    nested: Inner,
    #[serde(flatten)]
    flat: BTreeMap<String, i64>,
    ints: (i8, i16, i32, i64, u16, u32, u64, i128, u128),
    floats: Vec<f64>,
    f32s: Vec<f32>,
    by_number: HashMap<u64, Newtype>,
    by_char: BTreeMap<char, Pair>,
    variants: Vec<E>,
    empties: Empties,
}

fn outer() -> Outer {
    let mut m = BTreeMap::new();
    m.insert("b key".into(), E::New(-7));
    m.insert("a\"quote\\".into(), E::Plain);
    m.insert("ünï".into(), E::Tuple(3, None));
    m.insert("Z".into(), E::Fields { zeta: 0.1, alpha: vec![1, 2], mid: Unit });
    let flat: BTreeMap<String, i64> = [("mid".to_string(), 5), ("aa".to_string(), -1)].into_iter().collect();
    Outer {
        zz: "line\nbreak\ttab\u{1}ctl é",
        b: true,
        upper: 'x',
        nested: Inner {
            z: None,
            a: vec![vec![], vec![1.0, -0.0], vec![1e21, 1e-7, 0.1 + 0.2]],
            skipped: None,
            m,
            empty_map: HashMap::new(),
        },
        flat,
        ints: (-8, 300, -70000, i64::MIN, 65535, u32::MAX, u64::MAX, -5, 7),
        floats: vec![0.0, 1.5, f64::NAN, f64::INFINITY, -f64::INFINITY, 123456.789, 5e-324, f64::MAX],
        f32s: vec![0.1, 1.0 / 3.0, f32::NAN, f32::MAX, 16777217.0],
        by_number: [(10, Newtype(1.0)), (9, Newtype(f64::NAN)), (100, Newtype(-2.5))].into_iter().collect(),
        by_char: [('b', Pair(1, "one")), ('a', Pair(2, ""))].into_iter().collect(),
        variants: vec![
            E::Plain,
            E::New(0),
            E::Tuple(1, Some(2.0)),
            E::Fields { zeta: f32::INFINITY, alpha: vec![], mid: Unit },
        ],
        empties: (vec![], vec![vec![]], BTreeMap::new(), Unit, ()),
    }
}

#[test]
fn every_kind_of_value_prints_as_through_a_value() {
    same(&outer());
    same(&vec![outer(), outer()]);
    same(&Vec::<u8>::new());
    same(&E::Fields { zeta: 1.0, alpha: vec![9], mid: Unit });
    same(&Some(E::Tuple(0, None)));
    same(&"top-level string");
    same(&f64::NAN);
}

#[test]
fn a_repeated_key_keeps_its_last_value_as_a_btreemap_does() {
    // A map that writes a key twice (`flatten` of a map holding a field's
    // name): `to_value` keeps the last value, in key order.
    #[derive(Serialize)]
    struct Twice {
        k: u8,
        #[serde(flatten)]
        more: BTreeMap<String, u8>,
    }
    let more = [("k".to_string(), 2), ("a".to_string(), 1)].into_iter().collect();
    same(&Twice { k: 1, more });
}

#[test]
fn keys_a_value_refuses_or_prints_otherwise_are_refused() {
    // `to_value` turns these keys into strings its own way (floats, bools)
    // or refuses them; here they are refused, and summary.json falls back.
    let numbers: BTreeMap<u8, u8> = [(2, 1), (10, 0)].into_iter().collect();
    same(&numbers);
    #[derive(Serialize, PartialEq, Eq, PartialOrd, Ord)]
    struct K(u8, u8);
    let tuple_keys: BTreeMap<K, u8> = [(K(1, 2), 3)].into_iter().collect();
    assert!(to_string_pretty_sorted(&tuple_keys).is_err());
    let bool_keys: BTreeMap<bool, u8> = [(true, 1)].into_iter().collect();
    assert!(to_string_pretty_sorted(&bool_keys).is_err());
    assert!(to_string_pretty_sorted(&u128::MAX).is_err());
}
